import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Issue 27: a file under server/, app/ or agent/ does one thing, in 250 lines at the most (tests
// aside). A longer one is hiding a component, a module or a domain function: split it.

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const MAX_LINES = 250;

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

const lineCount = (file: string) => readFileSync(path.join(ROOT, file), "utf8").trimEnd().split("\n").length;

describe("file sizes", () => {
  it(`no source file under server/, app/ or agent/ is over ${MAX_LINES} lines`, () => {
    const files = ["server", "app", "agent"].flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    const tooLong = files
      .map((file) => ({ file, lines: lineCount(file) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(tooLong).toEqual([]);
  });
});
