// Transfer sizes of the public marketing pages against the production build.
// Usage: npm run build && node bench/page-weight.mjs
// Prints, per page, the compressed bytes of the HTML, the render-blocking CSS and the JS the page
// loads (entry + modulepreloads), and checks the issue 5 budgets for /:
// HTML + critical CSS ≤ 14 KB compressed, JS ≤ 60 KB compressed. (Lighthouse scores: see README of
// this folder; Lighthouse itself is not a dependency of the project.)
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const PAGES = [
  "/",
  "/pricing",
  "/how-it-works",
  "/tutorial",
  "/reviews",
  "/contact",
  "/terms",
  "/privacy",
  "/refund-policy",
];
const root = path.resolve(import.meta.dirname, "..");

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** GET with the encodings a browser offers; returns the bytes as sent and the decoded text. */
function get(url, encoding) {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { "accept-encoding": encoding } }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode,
          encoding: response.headers["content-encoding"] ?? "identity",
          body: Buffer.concat(chunks),
        }),
      );
    });
    request.setTimeout(10_000, () => request.destroy(new Error(`timeout ${url}`)));
    request.on("error", reject);
  });
}

async function sizeOf(url) {
  const compressed = await get(url, "gzip, deflate, br");
  const plain = await get(url, "identity");
  return {
    compressed: compressed.body.length,
    raw: plain.body.length,
    encoding: compressed.encoding,
    text: plain.body.toString("utf8"),
  };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-bench-"));
const port = await freePort();
const child = spawn(process.execPath, ["server.js"], {
  cwd: root,
  env: {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    SEED_SAMPLE_CONTENT: "false",
  },
  stdio: ["ignore", "ignore", "inherit"],
});
const base = `http://127.0.0.1:${port}`;
try {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await get(`${base}/healthz`, "identity")).status === 200) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error("server did not start within 60 s");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  console.log(`page-weight against the production build (${base}), compressed bytes as sent`);
  console.log("page              html       css        js         html+css   total");
  const results = {};
  for (const page of PAGES) {
    const html = await sizeOf(`${base}${page}`);
    const css = [...html.text.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((match) => match[1]);
    const js = new Set([
      ...[...html.text.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)].map((match) => match[1]),
      ...[...html.text.matchAll(/import\("([^"]+\.js)"\)/g)].map((match) => match[1]),
      ...[...html.text.matchAll(/<script[^>]+src="([^"]+)"/g)].map((match) => match[1]),
    ]);
    let cssBytes = 0;
    for (const href of css) cssBytes += (await sizeOf(`${base}${href}`)).compressed;
    let jsBytes = 0;
    for (const src of js) jsBytes += (await sizeOf(`${base}${src}`)).compressed;
    results[page] = { html: html.compressed, css: cssBytes, js: jsBytes };
    console.log(
      `${page.padEnd(17)} ${kb(html.compressed).padEnd(10)} ${kb(cssBytes).padEnd(10)} ${kb(jsBytes).padEnd(10)} ${kb(html.compressed + cssBytes).padEnd(10)} ${kb(html.compressed + cssBytes + jsBytes)}`,
    );
  }
  const home = results["/"];
  const htmlCssOk = home.html + home.css <= 14 * 1024;
  const jsOk = home.js <= 60 * 1024;
  console.log(
    `budget /: HTML + CSS ${kb(home.html + home.css)} (≤ 14 KB: ${htmlCssOk ? "met" : "NOT met"}), JS ${kb(home.js)} (≤ 60 KB: ${jsOk ? "met" : "NOT met"})`,
  );
} finally {
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  await fs.rm(dataDir, { recursive: true, force: true });
}
