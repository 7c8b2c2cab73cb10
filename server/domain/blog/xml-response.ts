import { publicConfig, type Config } from "#server/config.ts";
import type { Executor } from "#server/db/client.ts";
import { matchesIfNoneMatch, publicCacheHeaders } from "./cache.ts";

/** An XML document with the blog's validators; 304 when the caller already holds this version. */
export async function xmlResponse(
  request: Request,
  services: { db: Executor; config: Config },
  output: { kind: string; contentType: string; build: () => Promise<string> },
): Promise<Response> {
  // The text also depends on the public URL and brand, hence the public config in the validator.
  const cache = await publicCacheHeaders(services.db, {
    kind: output.kind,
    publicConfig: publicConfig(services.config),
  });
  if (request.method === "GET" || request.method === "HEAD") {
    if (matchesIfNoneMatch(request.headers.get("if-none-match"), cache.etag)) {
      return new Response(null, { status: 304, headers: cache.headers });
    }
  }
  return new Response(await output.build(), {
    headers: { ...cache.headers, "Content-Type": output.contentType },
  });
}
