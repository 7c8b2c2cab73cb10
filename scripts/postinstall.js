// `npm install`'s last step (decision 101): build the app now, so the first `npm start` answers
// in seconds instead of building first. Skipped where there are no sources to build yet: the
// Dockerfile installs dependencies from package.json alone, then copies the sources and builds.
import fs from "node:fs";
import path from "node:path";
import { buildIfStale } from "./build-if-stale.js";

const root = path.resolve(import.meta.dirname, "..");
if (fs.existsSync(path.join(root, "app/root.tsx")) && process.env.NAIJALINK_SKIP_BUILD !== "1")
  buildIfStale();
