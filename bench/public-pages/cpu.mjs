// Server CPU time per request for the kept pages (/blog, a post, a static page): the server
// process's utime + stime (from /proc) over a fixed number of requests. Unlike requests per
// second, this hardly moves with the load other processes put on the machine.
//
//   node bench/public-pages/cpu.mjs            (BENCH_REQUESTS=30000 by default)
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildIfStale } from "../../scripts/build-if-stale.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 30_000);
const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux

buildIfStale();
const work = fs.mkdtempSync(path.join(os.tmpdir(), "naijalink-cpu-"));
const port = 40_000 + Math.floor(Math.random() * 10_000);
const url = `http://127.0.0.1:${port}`;
const app = spawn(process.execPath, ["server.js"], {
  cwd: ROOT,
  stdio: ["ignore", "inherit", "inherit"],
  env: {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: url,
    DATA_DIR: path.join(work, "data"),
    DATABASE_URL: "",
    SEED_SAMPLE_CONTENT: "true",
    LOG_LEVEL: "warn",
  },
});
const cpuTicks = () => {
  const fields = fs.readFileSync(`/proc/${app.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return Number(fields[11]) + Number(fields[12]);
};

try {
  for (let attempt = 0; ; attempt += 1) {
    if (attempt === 300) throw new Error(`${url} did not answer within 60 s`);
    const ready = await fetch(`${url}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const list = await (await fetch(`${url}/blog`)).text();
  const slug = /href="\/blog\/([a-z0-9-]+)"/.exec(list.slice(list.indexOf("<main")))?.[1];
  if (!slug) throw new Error("the blog list shows no post: were the sample posts seeded?");
  console.log(`server CPU per request, ${REQUESTS} requests, 10 connections, Node ${process.version}`);
  for (const target of ["/blog", `/blog/${slug}`, "/pricing"]) {
    await autocannon({ url: url + target, connections: 10, amount: 2_000 }); // warm: render and JIT
    const before = cpuTicks();
    const result = await autocannon({ url: url + target, connections: 10, amount: REQUESTS });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target}: non-2xx answers or errors`);
    const micros = ((cpuTicks() - before) * CLOCK_TICK_MS * 1000) / result.requests.total;
    console.log(`${target.padEnd(40)} ${micros.toFixed(1).padStart(6)} µs CPU/request`);
  }
  console.log(
    `load average: ${os
      .loadavg()
      .map((load) => load.toFixed(2))
      .join(" ")}`,
  );
} finally {
  app.kill("SIGTERM");
  await new Promise((resolve) => app.once("exit", resolve));
  fs.rmSync(work, { recursive: true, force: true });
}
