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

/** Says what to do, for the doctor's line (`fix`). */
export class ServerUnreachable extends Error {
  readonly fix: string;
  constructor(message: string, fix: string) {
    super(message);
    this.fix = fix;
  }
}

/**
 * The server's answer to `POST path` with `body`; undefined when no server answers and none holds
 * DATA_DIR. It asks at `url` (--url) when given, else where the server recorded it listens (its
 * token file), else at http://127.0.0.1:$PORT.
 */
export async function askRunningServer<T>(
  config: Config,
  url: string | undefined,
  apiPath: string,
  body: unknown,
): Promise<T | undefined> {
  const admin = await readAdminToken(config.DATA_DIR);
  if (!admin) return undefined;
  const target = url ?? admin.url ?? `http://127.0.0.1:${config.PORT}`;
  let response: Response;
  try {
    response = await fetch(new URL(apiPath, target), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${admin.token}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch {
    if (isProcessRunning(admin.pid)) {
      throw new ServerUnreachable(
        `the app (pid ${admin.pid}) holds ${config.DATA_DIR} but did not answer at ${target}`,
        admin.url && !url
          ? `systemctl status naijalink (it is still starting, or stuck); or pass --url with its address`
          : `pass --url with the address it listens on (HOST and PORT of its settings), or restart it so it records the address`,
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
