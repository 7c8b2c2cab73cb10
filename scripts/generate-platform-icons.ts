// Writes public/icons/<platform>.svg from simple-icons (and the hand-drawn Windows panes, which
// simple-icons no longer carries). Run after upgrading simple-icons:
//   npx tsx scripts/generate-platform-icons.ts
// The platform row is drawn from these cached files instead of inline path data, which kept
// ~9 KB of path numbers (Tux alone is 5.3 KB) in every page's HTML and in the JS bundle.
// app/components/marketing/platform-icons.test.ts fails when a file is out of date.
import fs from "node:fs";
import path from "node:path";
import { platformIconFiles } from "../app/components/marketing/platform-icon-files.ts";

const dir = path.resolve(import.meta.dirname, "../public/icons");
fs.mkdirSync(dir, { recursive: true });
for (const [name, svg] of Object.entries(platformIconFiles())) {
  fs.writeFileSync(path.join(dir, name), svg);
  console.log(`public/icons/${name} ${svg.length} bytes`);
}
