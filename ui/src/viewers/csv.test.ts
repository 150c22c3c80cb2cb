import { describe, expect, it } from "vitest";
import { columnWidths, parseCsv, rowAtLine } from "./csv";

describe("parseCsv", () => {
  it("handles quotes, doubled quotes and newlines in fields", () => {
    const { rows } = parseCsv('name,note\n"Smith, J","said ""hi""\nthen left"\nplain,x\n', 100);
    expect(rows).toEqual([
      ["name", "note"],
      ["Smith, J", 'said "hi"\nthen left'],
      ["plain", "x"],
    ]);
  });

  it("stops at maxRows and says there is more", () => {
    const { rows, more } = parseCsv("a\n1\n2\n3\n", 2);
    expect(rows).toEqual([["a"], ["1"]]);
    expect(more).toBe(true);
  });

  it("detects tabs and semicolons", () => {
    expect(parseCsv("a\tb\n1\t2", 10).rows).toEqual([["a", "b"], ["1", "2"]]);
    expect(parseCsv("a;b\n1;2", 10).rows).toEqual([["a", "b"], ["1", "2"]]);
  });
});

describe("rows and the lines of the file (the search index's rows)", () => {
  it("knows the line each row starts on, a quoted field spanning lines included", () => {
    const text = 'name,note\n"Smith, J","said\nthen left"\nplain,x\n\nlast,y';
    const { rows, starts, lines } = parseCsv(text, 100);
    expect(rows.length).toBe(5);
    expect(starts).toEqual([0, 1, 3, 4, 5]);
    expect(lines).toBe(6);
    // Line 2 is the second line of row 1; line 3 is row 2.
    expect([0, 1, 2, 3, 4, 5].map((line) => rowAtLine(starts, lines, line))).toEqual([0, 1, 1, 2, 3, 4]);
    expect(rowAtLine(starts, lines, 6)).toBeNull();
    expect(rowAtLine(starts, lines, -1)).toBeNull();
  });

  it("counts CRLF once, and ends where parsing stopped", () => {
    const crlf = parseCsv("a,b\r\n1,2\r\n3,4\r\n", 100);
    expect(crlf.starts).toEqual([0, 1, 2]);
    expect(crlf.lines).toBe(3);
    const cut = parseCsv("a\n1\n2\n3\n", 2);
    expect(cut.starts).toEqual([0, 1]);
    expect(rowAtLine(cut.starts, cut.lines, 1)).toBe(1);
    expect(rowAtLine(cut.starts, cut.lines, 2)).toBeNull();
  });
});

describe("columnWidths", () => {
  it("sizes columns from the header and a sample of rows, within bounds", () => {
    const rows = [["id", "description"], ["1", "short"], ["2", "x".repeat(500)], ["3"]];
    expect(columnWidths(rows)).toEqual([4, 48]);
    expect(columnWidths([["name", "a"], ["Ada Lovelace", "b"]], 200, 2, 40)).toEqual([12, 2]);
  });

  it("looks only at the sample but counts every row's columns", () => {
    const rows = [["a"], ["b"], ["c", "much longer than the rest"]];
    expect(columnWidths(rows, 1)).toEqual([4, 4]);
  });

  it("measures the longest line of a multi-line cell", () => {
    expect(columnWidths([["one\ntwo words here\nx"]])[0]).toBe(14);
  });
});
