/** Parses CSV (RFC 4180: quotes, doubled quotes, newlines inside quotes) up to `maxRows` rows. */
export function parseCsv(text: string, maxRows: number): { rows: string[][]; more: boolean } {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  const delimiter = detectDelimiter(text);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === '"' && field === "") {
      quoted = true;
    } else if (c === delimiter) {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      if (rows.length >= maxRows) return { rows, more: i + 1 < text.length };
    } else {
      field += c;
    }
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return { rows, more: false };
}

function detectDelimiter(text: string): string {
  const firstLine = text.slice(0, text.indexOf("\n") === -1 ? text.length : text.indexOf("\n"));
  const counts: [string, number][] = [",", "\t", ";"].map((d) => [d, firstLine.split(d).length - 1]);
  counts.sort((a, b) => b[1] - a[1]);
  return counts[0][1] > 0 ? counts[0][0] : ",";
}

/**
 * Column widths in characters for a table whose rows are rendered only while in view (so the
 * browser cannot size columns from all of them): the longest cell of the header and the first
 * `sample` rows, between `min` and `max`. Every row counts toward the number of columns.
 */
export function columnWidths(rows: string[][], sample = 200, min = 4, max = 48): number[] {
  const columns = rows.reduce((n, row) => Math.max(n, row.length), 0);
  const widths = new Array<number>(columns).fill(min);
  for (const row of rows.slice(0, sample + 1)) {
    row.forEach((cell, c) => {
      const longest = cell.split("\n").reduce((n, line) => Math.max(n, line.length), 0);
      widths[c] = Math.max(widths[c], Math.min(max, longest));
    });
  }
  return widths;
}
