// A client no one here wrote — the official MCP TypeScript SDK (`@modelcontextprotocol/sdk`,
// installed with the reference server by `scripts/setup.sh --tests`) — driving
// `mcp-canvas-cli proxy` over stdio or Streamable HTTP. It runs one fixed scenario and prints a
// JSON report on stdout; `tests/proxy.rs` asserts on it. Arguments:
//   node scenario.mjs NODE_MODULES stdio CLI DATA_DIR
//   node scenario.mjs NODE_MODULES http URL
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { createHash } from "node:crypto";

const [nodeModules, mode, ...rest] = process.argv.slice(2);
const sdk = (path) => import(pathToFileURL(join(nodeModules, "@modelcontextprotocol/sdk/dist/esm", path)).href);
const { Client } = await sdk("client/index.js");
const { ElicitRequestSchema } = await sdk("types.js");

const client = new Client({ name: "proxy-scenario", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
// Questions from downstream servers reach us: answer them so the test can see they did.
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  asked.push(request.params.message);
  const schema = request.params.requestedSchema ?? {};
  const content = {};
  for (const [key, p] of Object.entries(schema.properties ?? {})) {
    if (!(schema.required ?? []).includes(key)) continue;
    const options = p.enum ?? p.oneOf?.map((o) => o.const) ?? p.items?.enum ?? p.items?.anyOf?.map((o) => o.const);
    content[key] =
      p.type === "array" ? [options[0]]
      : options ? options[0]
      : p.type === "boolean" ? true
      : p.type === "number" || p.type === "integer" ? (p.minimum ?? 1)
      : p.format === "email" ? "ada@example.com"
      : p.format === "date" ? "2026-11-21"
      : "Ada Lovelace";
  }
  return { action: "accept", content };
});
let listChanged = 0;

let transport;
if (mode === "stdio") {
  const { StdioClientTransport } = await sdk("client/stdio.js");
  const [cli, dataDir] = rest;
  transport = new StdioClientTransport({ command: cli, args: ["--data-dir", dataDir, "proxy"], stderr: "inherit" });
} else {
  const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
  transport = new StreamableHTTPClientTransport(new URL(rest[0]));
}
await client.connect(transport);

const report = { server: client.getServerVersion(), capabilities: client.getServerCapabilities() };
const size = (value) => Buffer.byteLength(JSON.stringify(value));
const attempt = async (what) => {
  try {
    return { ok: await what() };
  } catch (error) {
    return { error: { code: error.code ?? null, message: String(error.message ?? error) } };
  }
};

const tools = (await client.listTools()).tools;
report.tools = tools.map((t) => ({ name: t.name, title: t.title ?? null, annotations: t.annotations ?? null, hasOutputSchema: !!t.outputSchema }));

// The RFC 003 incident: a PDF as base64 inside JSON text.
const workbook = await client.callTool({ name: "demo__download_workbook", arguments: { pages: 50 } });
report.workbook = { result: workbook, bytes: size(workbook) };
const link = workbook.content.find((c) => c.type === "resource_link");
if (link) {
  const read = await client.readResource({ uri: link.uri });
  const blob = Buffer.from(read.contents[0].blob ?? "", "base64");
  report.workbook.read = { uri: link.uri, mimeType: read.contents[0].mimeType, length: blob.length, sha256: createHash("sha256").update(blob).digest("hex") };
}

// A tiny image passes through (models can see images).
if (tools.some((t) => t.name === "everything__get-tiny-image")) {
  report.tinyImage = await client.callTool({ name: "everything__get-tiny-image", arguments: {} });
  // Progress from downstream reaches us with our token.
  const progress = [];
  const long = await client.callTool(
    { name: "everything__trigger-long-running-operation", arguments: { duration: 1, steps: 4 } },
    undefined,
    { onprogress: (p) => progress.push(p) },
  );
  report.longRunning = { result: long, progress };
  report.structured = await client.callTool({ name: "everything__get-structured-content", arguments: { location: "Chicago" } });
  report.elicitation = await attempt(() => client.callTool({ name: "everything__trigger-elicitation-request", arguments: {} }));
  report.prompts = (await client.listPrompts()).prompts.map((p) => p.name);
  report.prompt = await attempt(() => client.getPrompt({ name: "everything__simple-prompt", arguments: {} }));
}

// Errors: a tool error stays a tool error; an unknown tool is a protocol error; a deleted or
// unknown artifact is a clear not-found.
report.toolError = await client.callTool({ name: "demo__render_chart", arguments: { values: "not a list" } });
report.unknownTool = await attempt(() => client.callTool({ name: "nosuch__tool", arguments: {} }));
report.missingArtifact = await attempt(() => client.readResource({ uri: "artifact://localhost/demo_000000000000" }));
report.resources = (await client.listResources()).resources.map((r) => r.uri);
report.elicitationsAsked = asked;
report.listChanged = listChanged;

await client.close();
process.stdout.write(JSON.stringify(report));
