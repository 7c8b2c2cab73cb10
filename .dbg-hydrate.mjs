import { chromium } from "playwright-core";
const url = process.argv[2];
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox","--disable-gpu"] });
for (let i = 0; i < 2; i++) {
  const page = await browser.newPage();
  page.on("console", (m) => console.log("console", m.type(), m.text().slice(0, 300)));
  page.on("pageerror", (e) => console.log("pageerror", String(e).slice(0, 300)));
  page.on("response", (r) => { if (!r.ok()) console.log("resp", r.status(), r.url()); });
  const resp = await page.goto(url);
  console.log("goto", resp.status(), JSON.stringify(await resp.allHeaders()).slice(0, 200));
  await page.waitForTimeout(4000);
  console.log("hydrated", await page.evaluate(() => document.documentElement.dataset.hydrated));
}
await browser.close();
