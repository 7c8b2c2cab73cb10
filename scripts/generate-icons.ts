// Writes the icons the app ships, from simple-icons (a dev dependency) and the hand-drawn Windows
// panes, which simple-icons no longer carries. Run after upgrading simple-icons:
//   npx tsx scripts/generate-icons.ts
// public/icons/<platform>.svg: the platform row, as cached files rather than inline path data
// (Tux alone is 5.3 KB) in every page. app/components/marketing/brand-icon-data.ts: the logos drawn
// inline. app/components/marketing/icons.test.ts fails when either is out of date.
import fs from "node:fs";
import path from "node:path";
import prettier from "prettier";
import { brandIconDataModule, platformIconFiles } from "../app/components/marketing/icon-sources.ts";

const dir = path.resolve(import.meta.dirname, "../public/icons");
fs.mkdirSync(dir, { recursive: true });
for (const [name, svg] of Object.entries(platformIconFiles())) {
  fs.writeFileSync(path.join(dir, name), svg);
  console.log(`public/icons/${name} ${svg.length} bytes`);
}
const module = path.resolve(import.meta.dirname, "../app/components/marketing/brand-icon-data.ts");
const options = { ...(await prettier.resolveConfig(module)), filepath: module };
fs.writeFileSync(module, await prettier.format(brandIconDataModule(), options));
console.log(`${path.relative(process.cwd(), module)} written`);
