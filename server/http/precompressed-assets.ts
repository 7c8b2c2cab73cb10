// The build's hashed assets, compressed once at build time (scripts/precompress-assets.js:
// brotli 11 and gzip 9, beside each file as .br / .gz) instead of per request at the
// compression middleware's fast settings. A file without a variant, or a client
// that accepts neither coding, falls through to express.static.
import type { NextFunction, Request, Response } from "express";
import fs from "node:fs";
import path from "node:path";
import { preferredEncoding } from "./encoding.ts";

const SUFFIX = { br: ".br", gzip: ".gz" } as const;

export function servePrecompressedAssets(assetsDir: string) {
  // The folder is fixed for the life of the process: list it once.
  let files: Set<string>;
  try {
    files = new Set(fs.readdirSync(assetsDir));
  } catch {
    files = new Set();
  }
  return (request: Request, response: Response, next: NextFunction) => {
    if (request.method !== "GET" && request.method !== "HEAD") return next();
    const name = request.path.slice(1);
    if (name.includes("/") || !files.has(name)) return next();
    const encoding = preferredEncoding(request.headers["accept-encoding"]);
    if (!encoding || !files.has(name + SUFFIX[encoding])) return next();
    response.setHeader("Content-Encoding", encoding);
    response.setHeader("Vary", "Accept-Encoding");
    // Set from the asset's name; sendFile keeps a type that is already set, so the variant's
    // suffix does not decide it.
    response.type(path.extname(name));
    response.sendFile(path.join(assetsDir, name + SUFFIX[encoding]), { immutable: true, maxAge: "1y" });
  };
}
