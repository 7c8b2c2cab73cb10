// Writes .br (brotli 11) and .gz (gzip 9) beside each compressible file of build/client/assets,
// for server/http/precompressed-assets.ts (decision 012). The files are content-hashed and
// immutable, so the slow, small encodings are paid once per build instead of per request.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const root = path.resolve(import.meta.dirname, "..");
const COMPRESSIBLE = /\.(?:js|css|svg|json)$/;

export function precompressAssets(dir = path.join(root, "build/client/assets")) {
  let written = 0;
  for (const name of fs.readdirSync(dir)) {
    if (!COMPRESSIBLE.test(name)) continue;
    const source = fs.readFileSync(path.join(dir, name));
    if (source.length < 1024) continue;
    const br = zlib.brotliCompressSync(source, {
      params: {
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: source.length,
      },
    });
    const gzip = zlib.gzipSync(source, { level: 9 });
    if (br.length < source.length) fs.writeFileSync(path.join(dir, `${name}.br`), br);
    if (gzip.length < source.length) fs.writeFileSync(path.join(dir, `${name}.gz`), gzip);
    written += 1;
  }
  return written;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`precompressed ${precompressAssets()} assets (brotli 11, gzip 9)`);
}
