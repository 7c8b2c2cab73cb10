// Transfer sizes of the public marketing pages against the production build.
// Usage: npm run build && node bench/page-weight.mjs
// Prints, per page, the compressed bytes of the HTML, the render-blocking CSS and the JS the page
// loads (entry + modulepreloads), and checks the issue 5 budgets for /:
// HTML + critical CSS ≤ 14 KB compressed, JS ≤ 60 KB compressed. It covers all nine public pages;
// bench/lighthouse.mjs gives the Lighthouse scores and what Chromium transferred on four of them.
import { get, startProductionServer } from "./support/production-server.mjs";

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

const server = await startProductionServer();
const base = server.base;
try {
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
  await server.stop();
}
