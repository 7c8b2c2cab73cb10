// Benchmark: requests per second for /blog and a post page served by the built app,
// against nginx serving the same HTML from disk, in the same run (autocannon).
//
//   npm run bench:public-pages                 (or: node bench/public-pages/run.mjs)
//   BENCH_DURATION=10 BENCH_CONNECTIONS=50 node bench/public-pages/run.mjs
//
// Fair fight: one Node process (as `npm start` runs it) against one nginx worker, both on loopback, same bytes
// (no compression: autocannon sends no Accept-Encoding). The app runs on a temp DATA_DIR
// with the sample posts seeded; nginx runs in the foreground with a temp config.
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildIfStale } from "../../scripts/build-if-stale.js";
import { startCommand } from "../support/production-server.mjs";
import { reportFigure, SHORT } from "../support/results.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const NGINX = process.env.NGINX_PATH ?? "/usr/sbin/nginx";
// BENCH_SHORT=1 (npm run bench): 3 s per run.
const DURATION = Number(process.env.BENCH_DURATION ?? (SHORT ? 3 : 10));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TARGET_RATIO = 0.5;

if (!fs.existsSync(NGINX)) {
  console.error(`nginx not found at ${NGINX}: install it (apt-get install nginx) or set NGINX_PATH`);
  process.exit(1);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// A first start creates the embedded store: over a minute when the machine is busy.
async function waitForHttp(url, child, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with code ${child.exitCode}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

function measure(url) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: DURATION, pipelining: 1 }, (error, result) => {
      if (error) return reject(error);
      if (result.non2xx > 0 || result.errors > 0) {
        return reject(new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`));
      }
      resolve({ rps: result.requests.average, p99: result.latency.p99, bytes: result.throughput.average });
    });
  });
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "naijalink-bench-"));
const children = [];
async function cleanup() {
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  await new Promise((resolve) => setTimeout(resolve, 500));
  fs.rmSync(work, { recursive: true, force: true });
}

try {
  buildIfStale();
  const appPort = await freePort();
  // The process `npm start` runs: its heap limits and malloc setting.
  const start = startCommand();
  const app = spawn(process.execPath, [...start.flags, "server.js"], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...start.env,
      NODE_ENV: "production",
      PORT: String(appPort),
      HOST: "127.0.0.1",
      PUBLIC_URL: `http://127.0.0.1:${appPort}`,
      DATA_DIR: path.join(work, "data"),
      DATABASE_URL: "",
      SEED_SAMPLE_CONTENT: "true",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  children.push(app);
  const appUrl = `http://127.0.0.1:${appPort}`;
  await waitForHttp(`${appUrl}/healthz`, app);

  const listHtml = await (await fetch(`${appUrl}/blog`)).text();
  const slug = /href="\/blog\/([a-z0-9-]+)"/.exec(listHtml.slice(listHtml.indexOf("<main")))?.[1];
  if (!slug) throw new Error("the blog list shows no post: were the sample posts seeded?");
  const postHtml = await (await fetch(`${appUrl}/blog/${slug}`)).text();

  const site = path.join(work, "site");
  fs.mkdirSync(path.join(site, "blog"), { recursive: true });
  fs.writeFileSync(path.join(site, "blog.html"), listHtml);
  fs.writeFileSync(path.join(site, "blog", `${slug}.html`), postHtml);
  const nginxPort = await freePort();
  const temp = path.join(work, "nginx");
  fs.mkdirSync(temp);
  fs.writeFileSync(
    path.join(temp, "nginx.conf"),
    `daemon off;
master_process off;
worker_processes 1;
pid ${temp}/nginx.pid;
error_log stderr warn;
events { worker_connections 4096; }
http {
  access_log off;
  default_type text/html;
  client_body_temp_path ${temp}/body;
  proxy_temp_path ${temp}/proxy;
  fastcgi_temp_path ${temp}/fastcgi;
  uwsgi_temp_path ${temp}/uwsgi;
  scgi_temp_path ${temp}/scgi;
  server {
    listen 127.0.0.1:${nginxPort};
    root ${site};
    location = /blog { try_files /blog.html =404; }
    location /blog/ { try_files $uri.html =404; }
  }
}
`,
  );
  const nginx = spawn(NGINX, ["-p", temp, "-c", path.join(temp, "nginx.conf"), "-e", "stderr"], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  children.push(nginx);
  const nginxUrl = `http://127.0.0.1:${nginxPort}`;
  await waitForHttp(`${nginxUrl}/blog`, nginx);
  const served = await (await fetch(`${nginxUrl}/blog/${slug}`)).text();
  if (served !== postHtml) throw new Error("nginx does not serve the same post HTML");

  const pages = [
    { name: "/blog", path: "/blog", bytes: Buffer.byteLength(listHtml) },
    { name: "post page", path: `/blog/${slug}`, bytes: Buffer.byteLength(postHtml) },
  ];
  console.log(
    `public-pages benchmark: ${DURATION} s per run, ${CONNECTIONS} connections, Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"})`,
  );
  const rows = [];
  for (const page of pages) {
    // Warm both (the app's first request renders and fills its page cache).
    await fetch(`${appUrl}${page.path}`);
    const appResult = await measure(`${appUrl}${page.path}`);
    const nginxResult = await measure(`${nginxUrl}${page.path}`);
    const ratio = appResult.rps / nginxResult.rps;
    rows.push({ page: page.name, ratio });
    console.log(
      `${page.name.padEnd(10)} ${String(page.bytes).padStart(6)} B   app ${appResult.rps.toFixed(0).padStart(7)} req/s (p99 ${appResult.p99} ms)   nginx ${nginxResult.rps.toFixed(0).padStart(7)} req/s (p99 ${nginxResult.p99} ms)   ratio ${ratio.toFixed(2)}x`,
    );
  }
  const worst = Math.min(...rows.map((row) => row.ratio));
  reportFigure({
    figure: "public pages: app req/s ÷ nginx req/s (lowest)",
    value: worst,
    unit: "x",
    min: TARGET_RATIO,
  });
  console.log(
    `target >= ${TARGET_RATIO}x nginx: ${worst >= TARGET_RATIO ? "met" : "NOT met"} (lowest ratio ${worst.toFixed(2)}x)`,
  );
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await cleanup();
}
