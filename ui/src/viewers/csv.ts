/** Parses CSV (RFC 4180: quotes, doubled quotes, newlines inside quotes) up to `maxRows` rows.
 * `starts`: the line (from 0, counting `\n`) each row starts on, and `lines`: the first line after
 * the rows — what the search index calls a row is a line of the file, and a quoted field may
 * span several. */
export function parseCsv(text: string, maxRows: number): { rows: string[][]; more: boolean; starts: number[]; lines: number } {
  const rows: string[][] = [];
  const starts: number[] = [0];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let line = 0;
  const delimiter = detectDelimiter(text);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\n") line++;
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
      if (c === "\r" && text[i + 1] === "\n") {
        i++;
        line++;
      }
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      if (rows.length >= maxRows) return { rows, more: i + 1 < text.length, starts: starts.slice(0, rows.length), lines: line };
      starts.push(line);
    } else {
      field += c;
    }
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
    line++;
  }
  return { rows, more: false, starts: starts.slice(0, rows.length), lines: line };
}

/** The row (an index into `starts`, as `parseCsv` gave them) that holds `line`, or `null` when
 * the line is not in the rows parsed (`lines`: the first line after them). */
export function rowAtLine(starts: number[], lines: number, line: number): number | null {
  if (starts.length === 0 || !(line >= 0) || line >= lines) return null;
  // The last row whose start is at or before the line.
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (starts[mid] <= line) low = mid;
    else high = mid - 1;
  }
  return starts[low] <= line ? low : null;
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
