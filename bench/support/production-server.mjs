// Starts the production build (`node server.js`, which loads build/server/index.js) on a free
// loopback port with a throw-away DATA_DIR, for the benchmarks in this folder.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "../..");

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** GET with the given Accept-Encoding; resolves with the status, encoding, headers and body as sent. */
export function get(url, encoding = "identity") {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { "accept-encoding": encoding } }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode,
          encoding: response.headers["content-encoding"] ?? "identity",
          headers: response.headers,
          body: Buffer.concat(chunks),
        }),
      );
    });
    request.setTimeout(10_000, () => request.destroy(new Error(`timeout ${url}`)));
    request.on("error", reject);
  });
}

/**
 * What `npm start` runs the app with (package.json's start script): the variables it sets
 * (malloc's arenas) and the Node flags (the heap limits). The benchmarks measure that process.
 */
export function startCommand() {
  const { scripts } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const words = scripts.start.split(/\s+/);
  return {
    env: Object.fromEntries(
      words.filter((word) => /^[A-Z_]+=/.test(word)).map((word) => word.split(/=(.*)/s).slice(0, 2)),
    ),
    flags: words.filter((word) => word.startsWith("--")),
  };
}

/**
 * Starts the built server; returns { base, dataDir, pid, stop() }. Fails if build/server/index.js is
 * missing. `dataDir`: use (and keep) this DATA_DIR instead of a throw-away one; `env`: settings
 * over the defaults below.
 */
export async function startProductionServer(options = {}) {
  try {
    await fs.access(path.join(root, "build/server/index.js"));
  } catch {
    throw new Error("build/server/index.js is missing: run `npm run build` first");
  }
  const dataDir = options.dataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-bench-")));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const start = startCommand();
  const child = spawn(process.execPath, [...start.flags, "server.js"], {
    cwd: root,
    env: {
      ...process.env,
      ...start.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: base,
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      SEED_SAMPLE_CONTENT: "false",
      ...options.env,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
    if (!options.dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  };
  try {
    // A first start creates the embedded store: over a minute when the machine is busy.
    const deadline = Date.now() + 180_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode}`);
      try {
        if ((await get(`${base}/healthz`)).status === 200) break;
      } catch {
        /* not up yet */
      }
      if (Date.now() > deadline) throw new Error("server did not start within 180 s");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, dataDir, pid: child.pid, stop };
}
