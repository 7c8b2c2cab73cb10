import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// One module per concept: a cohesive 400-line module that keeps its rule in one place beats four
// fragments that repeat it (decision 120 ended the 250-line cap, which split them). Past about
// 400 lines a file is named so a reader looks at it; past 800 it certainly holds more than one
// concept, and the suite fails.

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WARN_LINES = 400;
const MAX_LINES = 800;

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

const lineCount = (file: string) => readFileSync(path.join(ROOT, file), "utf8").trimEnd().split("\n").length;

describe("file sizes", () => {
  it(`no source file under server/, app/, core/ or agent/ is over ${MAX_LINES} lines; those over ${WARN_LINES} are named`, () => {
    const files = ["server", "app", "core", "agent"].flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    const sizes = files.map((file) => ({ file, lines: lineCount(file) }));
    const long = sizes.filter(({ lines }) => lines > WARN_LINES);
    if (long.length > 0)
      console.warn(
        `Files over ${WARN_LINES} lines (one concept each?): ${long.map(({ file, lines }) => `${file} (${lines})`).join(", ")}`,
      );
    expect(
      sizes.filter(({ lines }) => lines > MAX_LINES).map(({ file, lines }) => `${file}: ${lines} lines`),
    ).toEqual([]);
  });
});
