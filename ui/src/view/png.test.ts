import { describe, expect, it } from "vitest";
import { decodePng } from "./png";

function crcless(type: string, data: Uint8Array): Uint8Array {
  // The decoder does not check CRCs (the bytes come from our own proxy); zeros stand in.
  const chunk = new Uint8Array(12 + data.length);
  new DataView(chunk.buffer).setUint32(0, data.length);
  chunk.set([...type].map((c) => c.charCodeAt(0)), 4);
  chunk.set(data, 8);
  return chunk;
}

/** A PNG of `pixels` (rows of channel values) with one filter type per row. */
async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function png(width: number, colourType: number, channels: number, rows: number[][], filters: number[]): Promise<Uint8Array> {
  const raw: number[] = [];
  rows.forEach((row, y) => {
    const previous = y > 0 ? rows[y - 1] : new Array(row.length).fill(0);
    const f = filters[y % filters.length];
    raw.push(f);
    row.forEach((v, i) => {
      const a = i >= channels ? row[i - channels] : 0;
      const b = previous[i];
      const c = i >= channels ? previous[i - channels] : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][f];
      raw.push((v - predictor) & 255);
    });
  });
  const ihdr = new Uint8Array(13);
  const dv = new DataView(ihdr.buffer);
  dv.setUint32(0, width);
  dv.setUint32(4, rows.length);
  ihdr.set([8, colourType, 0, 0, 0], 8);
  const parts = [new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), crcless("IHDR", ihdr), crcless("IDAT", await deflate(new Uint8Array(raw))), crcless("IEND", new Uint8Array())];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe("decodePng", () => {
  it("undoes every filter type for RGB and RGBA", async () => {
    const rgb = [
      [10, 20, 30, 200, 100, 50, 0, 255, 7],
      [11, 22, 33, 190, 110, 40, 5, 250, 9],
      [255, 0, 0, 0, 255, 0, 0, 0, 255],
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
      [9, 8, 7, 6, 5, 4, 3, 2, 1],
    ];
    const decoded = await decodePng(await png(3, 2, 3, rgb, [0, 1, 2, 3, 4]));
    expect([decoded.width, decoded.height]).toEqual([3, 5]);
    const rgba = Array.from(decoded.data);
    rgb.forEach((row, y) => {
      for (let x = 0; x < 3; x++) expect(rgba.slice((y * 3 + x) * 4, (y * 3 + x) * 4 + 4)).toEqual([...row.slice(x * 3, x * 3 + 3), 255]);
    });
    const withAlpha = await decodePng(await png(2, 6, 4, [[1, 2, 3, 4, 250, 251, 252, 0], [9, 9, 9, 9, 0, 0, 0, 255]], [4, 3]));
    expect(Array.from(withAlpha.data)).toEqual([1, 2, 3, 4, 250, 251, 252, 0, 9, 9, 9, 9, 0, 0, 0, 255]);
    const grey = await decodePng(await png(2, 0, 1, [[0, 200]], [1]));
    expect(Array.from(grey.data)).toEqual([0, 0, 0, 255, 200, 200, 200, 255]);
  });

  it("refuses what it does not read instead of drawing garbage", async () => {
    await expect(decodePng(new Uint8Array(40))).rejects.toThrow("not a PNG");
    const palette = await png(1, 3, 1, [[0]], [0]);
    await expect(decodePng(palette)).rejects.toThrow("unsupported PNG");
  });
});
