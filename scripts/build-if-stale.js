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
  "core",
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

/** Where the build's own output goes (shown when the build fails). */
export const BUILD_LOG = path.join(root, "build.log");

/**
 * Builds when stale. The build's ~200 lines of output go to BUILD_LOG, not the terminal: the
 * terminal says that it builds, how long that usually takes, and how long it took.
 */
export function buildIfStale() {
  if (!buildIsStale()) return false;
  console.log(
    `Building NaijaLink first: this usually takes 1 to 3 minutes (longer on a busy machine); the build's output goes to ${path.relative(process.cwd(), BUILD_LOG) || BUILD_LOG}.`,
  );
  const started = Date.now();
  // A production build whoever asks for it: under vitest NODE_ENV is "test", and Vite would
  // then bundle React's development build (its console messages, its slower code).
  const env = { ...process.env, NODE_ENV: "production" };
  const log = fs.openSync(BUILD_LOG, "w");
  const result = spawnSync("npx", ["react-router", "build"], { cwd: root, stdio: ["ignore", log, log], env });
  fs.closeSync(log);
  if (result.status !== 0) {
    process.stderr.write(fs.readFileSync(BUILD_LOG, "utf8"));
    console.error(`The build failed (its output is above and in ${BUILD_LOG}).`);
    process.exit(result.status ?? 1);
  }
  precompressAssets();
  console.log(`Built in ${Math.round((Date.now() - started) / 1000)} s.`);
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) buildIfStale();
