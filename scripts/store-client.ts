// How the operator's commands (`npm run vpn`, `npm run doctor`) reach the store. PGlite is
// single-process (docs/product.md §11.7): while the server runs they ask it, with the token it wrote to
// DATA_DIR/vpn-admin.json (whoever can read DATA_DIR may administer the store); only when no server
// holds DATA_DIR do they open the database themselves, through the built server (which carries
// the migrations).
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Config } from "#server/config.ts";
import { isProcessRunning, readAdminToken } from "#server/domain/vpn/admin-token.ts";
import { buildIfStale } from "./build-if-stale.js";

/** The server's answer to `POST path` with `body`; undefined when no server answers and none holds DATA_DIR. */
export async function askRunningServer<T>(
  config: Config,
  url: string,
  apiPath: string,
  body: unknown,
): Promise<T | undefined> {
  const admin = await readAdminToken(config.DATA_DIR);
  if (!admin) return undefined;
  let response: Response;
  try {
    response = await fetch(new URL(apiPath, url), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${admin.token}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch {
    if (isProcessRunning(admin.pid)) {
      throw new Error(
        `The server (pid ${admin.pid}) holds ${config.DATA_DIR} but did not answer at ${url}; pass --url with its address.`,
      );
    }
    return undefined;
  }
  const answer = (await response.json().catch(() => ({}))) as { message?: string };
  if (!response.ok) throw new Error(answer.message ?? `The server answered ${response.status}`);
  return answer as T;
}

/** The built server's entry (build/server/index.js), built first when stale. */
export async function builtServer<T>(): Promise<T> {
  buildIfStale();
  return (await import(
    pathToFileURL(path.resolve(import.meta.dirname, "../build/server/index.js")).href
  )) as T;
}
