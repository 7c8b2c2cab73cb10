// The production server as a process of its own (`node server.js`), as an operator runs it: for
// the start-up tests and for several app processes on one database (tests/integration).
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

export interface ServerProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
}

export function runServer(env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, ["server.js"], {
    cwd: ROOT,
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
