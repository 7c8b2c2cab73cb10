// Lighthouse (mobile, default config: simulated slow 4G + 4x CPU slowdown) against the production
// build, on the marketing pages of issue 5 and the blog's pages of issue 17 (the list, its second
// page, a sample post and a long post with a table and code; bench/support/blog.mjs seeds them).
// Usage: npm run build && npm run bench:lighthouse [-- --runs=3] [--save=dir] [/path ...]
// (--save writes each Lighthouse JSON report to dir, for the details.)
// Needs Chromium: CHROME_PATH (default /usr/bin/chromium). Never downloads a browser; the only
// network traffic is to the server on 127.0.0.1.
// Prints, per page, the four category scores (the median over --runs) and the bytes the browser
// transferred (headers + compressed bodies) for the document + render-blocking CSS and for JS.
// Targets: 100 in every category; on /, HTML + critical CSS ≤ 14 KB and JS ≤ 60 KB; the blog's
// pages load no more JS than the marketing pages (decision 085).
import fs from "node:fs";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { LONG_POST_SLUG, SAMPLE_POST_SLUG, startProductionServerWithBlog } from "./support/blog.mjs";
import { reportFigure, SHORT } from "./support/results.mjs";

const args = process.argv.slice(2);
const runs = Math.max(1, Math.min(9, Number(args.find((arg) => arg.startsWith("--runs="))?.slice(7) ?? 1)));
const saveDir = args.find((arg) => arg.startsWith("--save="))?.slice(7);
const pages = args.filter((arg) => arg.startsWith("/"));
const MARKETING_PAGES = ["/", "/pricing", "/how-it-works", "/contact"];
const BLOG_PAGES = ["/blog", "/blog?page=2", `/blog/${SAMPLE_POST_SLUG}`, `/blog/${LONG_POST_SLUG}`];
// BENCH_SHORT=1 (npm run bench): the home page and a post, one run each.
const PAGES =
  pages.length > 0 ? pages : SHORT ? ["/", `/blog/${SAMPLE_POST_SLUG}`] : [...MARKETING_PAGES, ...BLOG_PAGES];
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];
const CHROME_FLAGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

const chromePath = process.env.CHROME_PATH || "/usr/bin/chromium";
if (!fs.existsSync(chromePath)) {
  console.error(
    `Chromium not found at ${chromePath}: install it (apt-get install chromium) or set CHROME_PATH`,
  );
  process.exit(1);
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Bytes per kind from Lighthouse's network-requests audit (what the browser actually received). */
function transfer(lhr) {
  const items = lhr.audits["network-requests"]?.details?.items ?? [];
  const blocking = new Set(
    (lhr.audits["render-blocking-resources"]?.details?.items ?? []).map((item) => item.url),
  );
  const sums = { html: 0, css: 0, criticalCss: 0, js: 0, other: 0, total: 0, requests: items.length };
  for (const item of items) {
    const bytes = item.transferSize ?? 0;
    sums.total += bytes;
    if (item.resourceType === "Document") sums.html += bytes;
    else if (item.resourceType === "Stylesheet") {
      sums.css += bytes;
      // Every stylesheet linked in <head> blocks rendering; Lighthouse lists only the ones that
      // cost time, so count all stylesheets as critical when none is listed.
      if (blocking.size === 0 || blocking.has(item.url)) sums.criticalCss += bytes;
    } else if (item.resourceType === "Script") sums.js += bytes;
    else sums.other += bytes;
  }
  return sums;
}

const server = await startProductionServerWithBlog();
const chrome = await chromeLauncher.launch({ chromePath, chromeFlags: CHROME_FLAGS, logLevel: "silent" });
const results = [];
try {
  console.log(
    `Lighthouse ${(await import("lighthouse/package.json", { with: { type: "json" } })).default.version}, mobile, ${runs} run(s) per page, against ${server.base}`,
  );
  for (const page of PAGES) {
    const samples = [];
    for (let run = 0; run < runs; run += 1) {
      // A trace occasionally fails to record on a busy machine (NO_NAVSTART): try up to 3 times.
      let result;
      for (let attempt = 1; ; attempt += 1) {
        result = await lighthouse(`${server.base}${page}`, {
          port: chrome.port,
          output: "json",
          logLevel: "error",
          onlyCategories: CATEGORIES,
          maxWaitForLoad: 45_000,
        });
        if (!result) throw new Error(`Lighthouse returned nothing for ${page}`);
        if (!result.lhr.runtimeError) break;
        if (attempt === 3) throw new Error(`${page}: ${result.lhr.runtimeError.message}`);
        console.error(`${page}: ${result.lhr.runtimeError.code}, retrying`);
      }
      samples.push(result.lhr);
      if (saveDir) {
        fs.mkdirSync(saveDir, { recursive: true });
        const name = page === "/" ? "home" : page.replace(/\W+/g, "-").replace(/^-|-$/g, "");
        fs.writeFileSync(`${saveDir}/${name}-${run + 1}.json`, result.report);
      }
    }
    const scores = Object.fromEntries(
      CATEGORIES.map((id) => [
        id,
        median(samples.map((lhr) => Math.round((lhr.categories[id].score ?? 0) * 100))),
      ]),
    );
    const last = samples.at(-1);
    const failing = Object.values(last.audits)
      .filter((audit) => audit.scoreDisplayMode !== "informative" && audit.score !== null && audit.score < 1)
      .filter((audit) =>
        CATEGORIES.some((id) =>
          last.categories[id].auditRefs.some((ref) => ref.id === audit.id && ref.weight > 0),
        ),
      )
      .map((audit) => `${audit.id}${audit.displayValue ? ` (${audit.displayValue})` : ""}`);
    const metrics = {
      fcp: last.audits["first-contentful-paint"].numericValue,
      lcp: last.audits["largest-contentful-paint"].numericValue,
      tbt: last.audits["total-blocking-time"].numericValue,
      cls: last.audits["cumulative-layout-shift"].numericValue,
    };
    results.push({ page, scores, sizes: transfer(last), failing, metrics });
  }
} finally {
  await chrome.kill();
  await server.stop();
}

console.log("");
console.log(
  "page                            perf  a11y  b-p   seo   html      crit.css  html+css  js        total     reqs",
);
for (const { page, scores, sizes } of results) {
  console.log(
    [
      page.padEnd(31),
      String(scores.performance).padEnd(5),
      String(scores.accessibility).padEnd(5),
      String(scores["best-practices"]).padEnd(5),
      String(scores.seo).padEnd(5),
      kb(sizes.html).padEnd(9),
      kb(sizes.criticalCss).padEnd(9),
      kb(sizes.html + sizes.criticalCss).padEnd(9),
      kb(sizes.js).padEnd(9),
      kb(sizes.total).padEnd(9),
      sizes.requests,
    ].join(" "),
  );
}
console.log("");
for (const { page, metrics, failing } of results) {
  console.log(
    `${page}: FCP ${Math.round(metrics.fcp)} ms, LCP ${Math.round(metrics.lcp)} ms, TBT ${Math.round(metrics.tbt)} ms, CLS ${metrics.cls.toFixed(3)}` +
      (failing.length > 0 ? `; below 100: ${failing.join(", ")}` : ""),
  );
}
const home = results.find((result) => result.page === "/");
const all100 = results.every((result) => CATEGORIES.every((id) => result.scores[id] === 100));
console.log("");
console.log(`target: 100 in every category: ${all100 ? "met" : "NOT met"}`);
reportFigure({
  figure: `lighthouse: lowest score (${results.map((result) => result.page).join(", ")})`,
  value: Math.min(...results.flatMap((result) => CATEGORIES.map((id) => result.scores[id]))),
  unit: "",
  min: 100,
});
if (home) {
  const htmlCss = home.sizes.html + home.sizes.criticalCss;
  reportFigure({ figure: "lighthouse /: HTML + critical CSS", value: htmlCss / 1024, unit: "KB", max: 14 });
  reportFigure({ figure: "lighthouse /: JS", value: home.sizes.js / 1024, unit: "KB", max: 60 });
  console.log(
    `target /: HTML + critical CSS ${kb(htmlCss)} (≤ 14 KB: ${htmlCss <= 14 * 1024 ? "met" : "NOT met"}), JS ${kb(home.sizes.js)} (≤ 60 KB: ${home.sizes.js <= 60 * 1024 ? "met" : "NOT met"})`,
  );
}

const heaviest = (group) => {
  const measured = results.filter((result) => group.includes(result.page));
  if (measured.length === 0) return undefined;
  return {
    htmlCss: Math.max(...measured.map(({ sizes }) => sizes.html + sizes.criticalCss)),
    js: Math.max(...measured.map(({ sizes }) => sizes.js)),
  };
};
const marketing = heaviest(MARKETING_PAGES);
const blog = heaviest(BLOG_PAGES);
if (marketing && blog) {
  console.log(
    `heaviest marketing page: HTML + CSS ${kb(marketing.htmlCss)}, JS ${kb(marketing.js)}; heaviest blog page: HTML + CSS ${kb(blog.htmlCss)}, JS ${kb(blog.js)}` +
      ` (blog JS ≤ marketing JS: ${blog.js <= marketing.js ? "met" : "NOT met"})`,
  );
}
