// The production server as a process of its own (`node server.js`), as an operator runs it: for
// the start-up tests and for several app processes on one database (tests/integration).
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "#server/config.ts";
import type { Database } from "#server/db/client.ts";
import type { Sealer } from "#server/secrets.ts";
import { makeDataDir, testEnv, type TestApp } from "./app.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

export interface ServerProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
}

/** `node server.js` (or `script`, a path from the repository's root) in `cwd`, with only `env`. */
export function runServer(
  env: Record<string, string>,
  options: { cwd?: string; script?: string } = {},
): ServerProcess {
  const child = spawn(process.execPath, [path.join(ROOT, options.script ?? "server.js")], {
    cwd: options.cwd ?? ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what = "it") {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** The server's base URL once it says it is listening; fails at once if it exits instead. */
export async function listeningUrl(server: ServerProcess, timeoutMs = 80_000): Promise<string> {
  const listening = /listening on (http:\/\/[^\s"]+)/;
  await waitFor(
    () => {
      if (server.child.exitCode !== null)
        throw new Error(`the server exited (${server.child.exitCode}):\n${server.output()}`);
      return listening.test(server.output());
    },
    timeoutMs,
    "the server to listen",
  );
  return listening.exec(server.output())![1]!.replace("localhost", "127.0.0.1");
}

/** A built server started against a shared database, with the helpers tests use on it. */
export interface AppProcess {
  name: string;
  server: ServerProcess;
  url: string;
  dataDir: string;
  /**
   * The in-process test helpers' view of it (tests/support/staff.ts): requests go
   * over HTTP, behind a pretend proxy that forwards `clientIp`; `services` is the test's own
   * connection to the shared database.
   */
  app: TestApp;
  stop(): Promise<void>;
}

/** `node server.js` on `DATABASE_URL` behind one proxy (`TRUST_PROXY=1`), with a DATA_DIR of its own. */
export async function startAppProcess(
  name: string,
  shared: { databaseUrl: string; db: Database; sealer: Sealer },
  env: Record<string, string> = {},
): Promise<AppProcess> {
  const dataDir = await makeDataDir();
  const processEnv = testEnv(dataDir, { DATABASE_URL: shared.databaseUrl, TRUST_PROXY: "1", ...env });
  const server = runServer(processEnv);
  const stop = async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    await fs.rm(dataDir, { recursive: true, force: true });
  };
  const url = await listeningUrl(server).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  const request = (target: string, init: RequestInit & { json?: unknown; clientIp?: string } = {}) => {
    const { json, clientIp, ...rest } = init;
    const headers = new Headers(rest.headers);
    headers.set("origin", new URL(testEnv(dataDir).PUBLIC_URL!).origin);
    headers.set("x-forwarded-for", clientIp ?? `10.9.${crypto.randomInt(256)}.${crypto.randomInt(256)}`);
    if (json !== undefined) headers.set("content-type", "application/json");
    return fetch(`${url}${target}`, {
      ...rest,
      method: rest.method ?? (json !== undefined ? "POST" : "GET"),
      headers,
      body: json !== undefined ? JSON.stringify(json) : rest.body,
    });
  };
  const services = { db: shared.db, sealer: shared.sealer, config: loadConfig(processEnv) };
  const app = { services, request } as unknown as TestApp;
  return { name, server, url, dataDir, app, stop };
}

/** Each e-mail the processes wrote to their outbox folders: `{stamp}-{kind}-{outbox id}.eml`. */
export async function emlFiles(processes: AppProcess[]) {
  const files = [];
  for (const { name, dataDir } of processes) {
    const names = await fs.readdir(path.join(dataDir, "outbox")).catch(() => [] as string[]);
    for (const file of names.filter((entry) => entry.endsWith(".eml")))
      files.push({ process: name, kind: file.slice(25, -41), id: file.slice(-40, -4) });
  }
  return files;
}

/** The process's log lines (pino JSON) whose message is `message`. */
export function logEntries(process: AppProcess, message: string): Array<Record<string, unknown>> {
  return process.server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.msg === message);
}
