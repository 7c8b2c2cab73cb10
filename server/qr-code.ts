// QR codes, drawn on the server: a config's (its download's SVG and its e-mail's PNG) and the
// two-factor enrolment's. `qrcode` is loaded on first use, not at start (issue 26).
import zlib from "node:zlib";

const OPTIONS = { errorCorrectionLevel: "M", margin: 2 } as const;
/** Pixels per module of the e-mailed PNG (qrcode's own default). */
const PNG_SCALE = 4;
const PNG_SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

/**
 * A PNG of the QR code of `text`, to attach inline: mail clients do not show SVG. Written as a
 * 1-bit grayscale PNG from qrcode's module matrix (decision 117): qrcode's own PNG renderer draws
 * 8-bit RGBA through pngjs and tries every row filter, which cost a config e-mail about three
 * times the CPU of everything else in it, on the thread that answers buyers.
 */
export async function qrCodePng(text: string): Promise<Buffer> {
  const { default: QRCode } = await import("qrcode");
  const { modules } = QRCode.create(text, { errorCorrectionLevel: OPTIONS.errorCorrectionLevel });
  const width = (modules.size + 2 * OPTIONS.margin) * PNG_SCALE;
  const rowBytes = Math.ceil(width / 8);
  // Each scanline: filter byte 0 (none), then the pixels, one bit each, 1 = white.
  const scanlines = Buffer.alloc((rowBytes + 1) * width, 0xff);
  for (let y = 0; y < width; y++) scanlines[y * (rowBytes + 1)] = 0;
  for (let row = 0; row < modules.size; row++) {
    for (let column = 0; column < modules.size; column++) {
      if (!modules.get(row, column)) continue;
      const left = (column + OPTIONS.margin) * PNG_SCALE;
      for (let dy = 0; dy < PNG_SCALE; dy++) {
        const line = ((row + OPTIONS.margin) * PNG_SCALE + dy) * (rowBytes + 1) + 1;
        for (let x = left; x < left + PNG_SCALE; x++) {
          const byte = line + (x >> 3);
          scanlines[byte] = scanlines[byte]! & ~(0x80 >> (x & 7));
        }
      }
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(width, 4);
  header[8] = 1; // bit depth; colour type 0 (grayscale), default compression, filter and no interlace follow as zeros
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk("IHDR", header),
    pngChunk("IDAT", zlib.deflateSync(scanlines)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write(type, 4, "latin1");
  data.copy(chunk, 8);
  chunk.writeUInt32BE(zlib.crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return chunk;
}

/** The QR code of `text` as an SVG document. */
export async function qrCodeSvg(text: string): Promise<string> {
  const { default: QRCode } = await import("qrcode");
  return QRCode.toString(text, { ...OPTIONS, type: "svg" });
}
