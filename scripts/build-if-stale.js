// Builds the app when build/ is missing or older than any source file, so `npm start`
// and `npm test` work on a fresh clone and never run stale code.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { precompressAssets } from "./precompress-assets.js";

const root = path.resolve(import.meta.dirname, "..");
const output = path.join(root, "build/server/index.js");
const sources = [
  "app",
  "server",
  "public",
  "package.json",
  "vite.config.ts",
  "react-router.config.ts",
  "scripts/vite-enhancement-script.ts",
  "scripts/precompress-assets.js",
];

function newestMtime(target) {
  let stat;
  try {
    stat = fs.statSync(target);
  } catch {
    return 0;
  }
  // Unit tests beside the code are not part of the build.
  if (!stat.isDirectory()) return /\.test\.tsx?$/.test(target) ? 0 : stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target))
    newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/** True when build/ is missing or older than a source file. */
export function buildIsStale() {
  const built = fs.existsSync(output) ? fs.statSync(output).mtimeMs : 0;
  const newest = Math.max(...sources.map((source) => newestMtime(path.join(root, source))));
  return built <= newest;
}

export function buildIfStale() {
  if (!buildIsStale()) return false;
  console.log("Building NaijaLink (react-router build)...");
  // A production build whoever asks for it: under vitest NODE_ENV is "test", and Vite would
  // then bundle React's development build (its console messages, its slower code).
  const env = { ...process.env, NODE_ENV: "production" };
  const result = spawnSync("npx", ["react-router", "build"], { cwd: root, stdio: "inherit", env });
  if (result.status !== 0) process.exit(result.status ?? 1);
  precompressAssets();
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) buildIfStale();
