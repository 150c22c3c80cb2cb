import { describe, expect, it } from "vitest";
import { highlightLines, languageFor, MAX_HIGHLIGHT_CHARS } from "./highlight";

const plain = (lines: { text: string }[][]) => lines.map((l) => l.map((t) => t.text).join(""));

describe("languageFor", () => {
  it("uses the extension first, then the MIME type", () => {
    expect(languageFor("main.py", "text/plain")).toBe("python");
    expect(languageFor("App.TSX", "application/octet-stream")).toBe("typescript");
    expect(languageFor("Cargo.toml", "text/plain")).toBe("ini");
    expect(languageFor("script", "text/x-shellscript")).toBe("bash");
    expect(languageFor("data", "application/json; charset=utf-8")).toBe("json");
    expect(languageFor("notes.txt", "text/plain")).toBeNull();
    expect(languageFor(".bashrc", "text/plain")).toBeNull();
  });
});

describe("highlightLines", () => {
  it("keeps every character and every line", () => {
    const source = 'def f(x):\n    """doc\n    more"""\n    return "a" + str(x)  # c\n';
    const lines = highlightLines(source, "python");
    expect(plain(lines)).toEqual(source.split("\n"));
  });

  it("carries a token's classes across the lines it spans", () => {
    const lines = highlightLines('x = """one\ntwo"""', "python");
    const second = lines[1];
    expect(second.map((t) => t.text).join("")).toBe('two"""');
    expect(second[0].className).toContain("hljs-string");
    expect(lines[0].find((t) => t.text.includes("one"))?.className).toContain("hljs-string");
  });

  it("marks keywords and nested scopes", () => {
    const [line] = highlightLines("fn main() { let x = 1; }", "rust");
    expect(line.find((t) => t.text === "fn")?.className).toBe("hljs-keyword");
    expect(line.find((t) => t.text === "main")?.className).toMatch(/hljs-title/);
    expect(line.find((t) => t.text === "1")?.className).toBe("hljs-number");
  });

  it("never turns markup in the text into elements: tokens are text", () => {
    const lines = highlightLines('<img src=x onerror="alert(1)">', "xml");
    expect(plain(lines)).toEqual(['<img src=x onerror="alert(1)">']);
  });

  it("leaves unknown languages and very long texts plain", () => {
    expect(highlightLines("a\nb", null)).toEqual([[{ text: "a", className: "" }], [{ text: "b", className: "" }]]);
    expect(highlightLines("a", "cobol")).toEqual([[{ text: "a", className: "" }]]);
    const long = "x = 1\n".repeat(MAX_HIGHLIGHT_CHARS / 6 + 1);
    expect(highlightLines(long, "python").every((l) => l.every((t) => t.className === ""))).toBe(true);
  });
});
