// PNG to pixels without loading an image: hosts may give a view `img-src 'none'` (the MCP
// Inspector does), and WebKit's createImageBitmap loads a Blob through the same check. The
// browser's own zlib (DecompressionStream) inflates; this file only reads the chunks and undoes
// the scanline filters. Enough for what MCP Canvas sends the view (8-bit grey, grey + alpha, RGB
// or RGBA, not interlaced: the proxy re-encodes every image that way).

export interface Pixels {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel. */
  data: Uint8ClampedArray;
}

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };

export async function decodePng(bytes: Uint8Array): Promise<Pixels> {
  if (bytes.length < 33 || SIGNATURE.some((b, i) => bytes[i] !== b)) throw new Error("not a PNG");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Uint8Array[] = [];
  while (at + 8 <= bytes.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      const depth = data[8];
      channels = CHANNELS[data[9]] ?? 0;
      if (depth !== 8 || !channels || data[12] !== 0) throw new Error(`unsupported PNG (depth ${depth}, colour type ${data[9]}, interlace ${data[12]})`);
      if (width * height > 64_000_000) throw new Error("PNG too large");
    } else if (type === "IDAT") {
      idat.push(data);
    } else if (type === "IEND") {
      break;
    }
    at += 12 + length;
  }
  if (!width || !height || idat.length === 0) throw new Error("PNG without image data");
  const raw = await inflate(idat);
  const stride = width * channels;
  if (raw.length < height * (stride + 1)) throw new Error("PNG image data is short");
  const out = new Uint8ClampedArray(width * height * 4);
  let previous: Uint8Array = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    unfilter(filter, line, previous, channels);
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      const i = x * channels;
      if (channels <= 2) {
        out[o] = out[o + 1] = out[o + 2] = line[i];
        out[o + 3] = channels === 2 ? line[i + 1] : 255;
      } else {
        out[o] = line[i];
        out[o + 1] = line[i + 1];
        out[o + 2] = line[i + 2];
        out[o + 3] = channels === 4 ? line[i + 3] : 255;
      }
    }
    previous = line;
  }
  return { width, height, data: out };
}

/** Undoes one scanline's filter in place (PNG spec, section 9). */
function unfilter(filter: number, line: Uint8Array, previous: Uint8Array, bpp: number) {
  for (let i = 0; i < line.length; i++) {
    const a = i >= bpp ? line[i - bpp] : 0;
    const b = previous[i];
    const c = i >= bpp ? previous[i - bpp] : 0;
    switch (filter) {
      case 0:
        break;
      case 1:
        line[i] = (line[i] + a) & 255;
        break;
      case 2:
        line[i] = (line[i] + b) & 255;
        break;
      case 3:
        line[i] = (line[i] + ((a + b) >> 1)) & 255;
        break;
      case 4: {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        line[i] = (line[i] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 255;
        break;
      }
      default:
        throw new Error(`bad PNG filter ${filter}`);
    }
  }
}

async function inflate(parts: Uint8Array[]): Promise<Uint8Array> {
  const stream = new Blob(parts as BlobPart[]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
