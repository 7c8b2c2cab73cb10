// Content codings for bodies compressed ahead of time: the page cache's pages (compressed once
// per render) and the build's assets (compressed at build time). One negotiator for both.
import { promisify } from "node:util";
import zlib from "node:zlib";

/** The codings kept beside an identity body, best first. */
export const ENCODINGS = ["br", "gzip"] as const;
export type Encoding = (typeof ENCODINGS)[number];

/**
 * br when the client accepts it at all, else gzip, else identity: any acceptable coding may be
 * chosen (RFC 9110 §12.5.3), and browsers list gzip first although br is smaller. A coding is
 * acceptable when listed with q > 0, or covered by `*` with q > 0 and not listed.
 */
export function preferredEncoding(header: string | string[] | undefined): Encoding | undefined {
  if (!header) return undefined;
  const weights = new Map<string, number>();
  for (const part of (Array.isArray(header) ? header.join(",") : header).split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find(Boolean);
    weights.set(name, q === undefined ? 1 : Number(q));
  }
  const accepted = (encoding: string) => (weights.get(encoding) ?? weights.get("*") ?? 0) > 0;
  return ENCODINGS.find(accepted);
}

/** Compressed once at the highest settings, off the main thread: each answer then sends the bytes as they are. */
export async function compressVariants(body: Buffer): Promise<Record<Encoding, Buffer>> {
  const [br, gzip] = await Promise.all([
    promisify(zlib.brotliCompress)(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
    promisify(zlib.gzip)(body, { level: 9 }),
  ]);
  return { br, gzip };
}
