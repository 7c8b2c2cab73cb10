// `.env` in the working directory (README "Settings"): the environment first, then the file. A
// name the environment sets, even to "", keeps its value; the file fills in the others.
import fs from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";

/** Reads `dir/.env` into `env` for the names `env` lacks; the names taken from it (none without a file). */
export function loadEnvFile(dir = process.cwd(), env = process.env) {
  const file = path.join(dir, ".env");
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if (error.code === "ENOENT") return { file: null, names: [] };
    throw error;
  }
  const names = [];
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (env[name] !== undefined) continue;
    env[name] = value;
    names.push(name);
  }
  return { file, names };
}
