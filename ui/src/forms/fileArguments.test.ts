import { describe, expect, it } from "vitest";
import type { ArtifactRecord } from "../wire/ArtifactRecord";
import type { FileArgument } from "../wire/FileArgument";
import type { ToolView } from "../wire/ToolView";
import {
  accepts,
  checkFileArguments,
  fileArgumentsOf,
  fileFormSchema,
  recordProblem,
  referenceId,
  withFileFields,
  withFiles,
  withoutFile,
  type RecordState,
} from "./fileArguments";

const MB = 1024 * 1024;
const record = (id: string, name: string, mime: string, size: number) => ({ id, name, mime, size }) as ArtifactRecord;
const image: FileArgument = { name: "image", multiple: false, accept: ["image/png", "image/*", ".webp"], max_size: 10 * MB };
const files: FileArgument = { name: "files", multiple: true, accept: [], max_size: null };
const known = (...records: ArtifactRecord[]): Record<string, RecordState> => Object.fromEntries(records.map((r) => [r.id, { kind: "ok", record: r }]));

describe("file arguments", () => {
  it("reads references as results show them, as the host does", () => {
    expect(referenceId("artifact:demo_1f0c2b7e9a41")).toBe("demo_1f0c2b7e9a41");
    expect(referenceId("artifact://localhost/my-server_1F0C2B7E9A41")).toBe("my-server_1F0C2B7E9A41");
    expect(referenceId(" demo_1f0c2b7e9a41 ")).toBe("demo_1f0c2b7e9a41");
    expect(referenceId("artifact:demo_1f0c2b7e9a4")).toBeNull();
    expect(referenceId("/home/ana/chart.png")).toBeNull();
    expect(referenceId("artifact:Demo_1f0c2b7e9a41")).toBeNull();
  });

  it("accepts exact types, families and extensions, case-insensitively; nothing listed takes anything", () => {
    expect(accepts(["text/csv", ".csv"], "text/csv; charset=utf-8", "a.txt")).toBe(true);
    expect(accepts(["text/csv", ".csv"], "application/octet-stream", "Q3.CSV")).toBe(true);
    expect(accepts(["text/csv", ".csv"], "image/png", "chart.png")).toBe(false);
    expect(accepts(["image/*"], "image/webp", "x")).toBe(true);
    expect(accepts(["image/*"], "imagex/png", "x")).toBe(false);
    expect(accepts([], "anything/at-all", "x")).toBe(true);
    expect(accepts(["*/*"], "a/b", "x")).toBe(true);
  });

  it("names what is wrong with a file: its type first, then its size", () => {
    const csv = { ...image, accept: ["text/csv", ".csv"] };
    expect(recordProblem(csv, record("a", "chart.png", "image/png", 10))).toBe("chart.png is image/png; this tool takes text/csv, .csv");
    expect(recordProblem(csv, record("a", "big.csv", "text/csv", Math.round(12.4 * MB)))).toBe("big.csv is 12.4 MB; this tool takes at most 10 MB");
    expect(recordProblem(csv, record("a", "ok.csv", "text/csv", 10 * MB))).toBeNull();
  });

  it("finds the host's file arguments and SEP-2356 properties it did not list", () => {
    const tool = {
      file_arguments: [{ name: "doc", multiple: false, accept: [], max_size: null }],
      input_schema: {
        type: "object",
        properties: {
          doc: { type: "object" },
          pics: { type: "array", items: { type: "string", format: "uri", "x-mcp-file": { accept: ["IMAGE/PNG"], maxSize: 5 } } },
          note: { type: "string", "x-mcp-file": {} },
        },
      },
    } as unknown as ToolView;
    expect(fileArgumentsOf(tool)).toEqual([
      { name: "doc", multiple: false, accept: [], max_size: null },
      { name: "pics", multiple: true, accept: ["image/png"], max_size: 5 },
    ]);
  });

  it("draws file arguments as references in the form, keeping titles, descriptions and item bounds", () => {
    const schema = {
      type: "object" as const,
      required: ["files"],
      properties: {
        files: { type: "array" as const, title: "Files", minItems: 2, items: { type: "string" as const, format: "uri" } },
        doc: { type: "object" as const, description: "An OpenAI file", properties: { download_url: { type: "string" as const } } },
        other: { type: "integer" as const },
      },
    };
    const form = fileFormSchema(schema, [files, { name: "doc", multiple: false, accept: [], max_size: null }]);
    expect(form.properties).toEqual({
      files: { title: "Files", minItems: 2, type: "array", items: { type: "string" } },
      doc: { description: "An OpenAI file", type: "string" },
      other: { type: "integer" },
    });
    expect(form.required).toEqual(["files"]);
    expect(withFileFields({ files: { "ui:widget": "checkboxes", "ui:help": "h" } }, [files], "file")).toEqual({ files: { "ui:help": "h", "ui:field": "file" } });
  });

  it("adds and removes files: one replaces one, a list gains new ones once; empty leaves the argument out", () => {
    const a = record("demo_aaaaaaaaaaaa", "a", "", 1);
    const b = record("demo_bbbbbbbbbbbb", "b", "", 1);
    expect(withFiles(image, "artifact:demo_aaaaaaaaaaaa", [b])).toBe("artifact:demo_bbbbbbbbbbbb");
    expect(withFiles(files, undefined, [a, b, a])).toEqual(["artifact:demo_aaaaaaaaaaaa", "artifact:demo_bbbbbbbbbbbb"]);
    expect(withFiles(files, ["demo_aaaaaaaaaaaa"], [a])).toEqual(["demo_aaaaaaaaaaaa"]);
    expect(withoutFile(files, ["x", "y"], 0)).toEqual(["y"]);
    expect(withoutFile(files, ["x"], 0)).toBeUndefined();
    expect(withoutFile(image, "x", 0)).toBeUndefined();
  });

  it("blocks a call while a file is wrong, gone or still being looked up, and says which ids to look up", () => {
    const png = record("demo_aaaaaaaaaaaa", "chart.png", "image/png", 100);
    const pdf = record("demo_bbbbbbbbbbbb", "doc.pdf", "application/pdf", 100);
    const empty = checkFileArguments([image, files], {}, {});
    expect(empty).toMatchObject({ blocked: false, pending: false, missing: [], problems: [] });
    const unknown = checkFileArguments([image], { image: "artifact:demo_aaaaaaaaaaaa" }, {});
    expect(unknown).toMatchObject({ blocked: true, pending: true, missing: ["demo_aaaaaaaaaaaa"] });
    expect(checkFileArguments([image], { image: "artifact:demo_aaaaaaaaaaaa" }, { demo_aaaaaaaaaaaa: { kind: "loading" } })).toMatchObject({ blocked: true, pending: true, missing: [] });
    expect(checkFileArguments([image], { image: "artifact:demo_aaaaaaaaaaaa" }, known(png)).blocked).toBe(false);
    const wrong = checkFileArguments([image], { image: "artifact:demo_bbbbbbbbbbbb" }, known(pdf));
    expect(wrong.problems).toEqual([{ name: "image", problem: "doc.pdf is application/pdf; this tool takes image/png, image/*, .webp" }]);
    const gone = checkFileArguments([image], { image: "artifact:demo_cccccccccccc" }, { demo_cccccccccccc: { kind: "failed", error: "No stored file demo_cccccccccccc" } });
    expect(gone.problems.map((p) => p.problem)).toEqual(["No stored file demo_cccccccccccc"]);
    expect(checkFileArguments([image], { image: "/tmp/chart.png" }, {}).problems[0].problem).toContain("is not a file reference");
    expect(checkFileArguments([files], { files: "artifact:demo_aaaaaaaaaaaa" }, known(png)).problems.map((p) => p.problem)).toEqual(["files takes a list of files"]);
    expect(checkFileArguments([image], { image: ["artifact:demo_aaaaaaaaaaaa"] }, known(png)).problems.map((p) => p.problem)).toEqual(["image takes one file"]);
    // A data: URI typed in goes as it is, within the size the tool takes.
    expect(checkFileArguments([image], { image: "data:image/png;base64,AAAA" }, {}).blocked).toBe(false);
    const small = { ...image, max_size: 2 };
    expect(checkFileArguments([small], { image: "data:image/png;base64,AAAA" }, {}).problems[0].problem).toBe("The inline file is 3 B; this tool takes at most 2 B");
  });
});
