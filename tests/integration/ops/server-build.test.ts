// The server build bundles the packages that load hundreds of small modules (decisions 116 and
// 119): the built server must not import them from node_modules, where each would load its
// whole module graph again. Packages that read files beside themselves stay external.
import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BUILD_ENTRY } from "../../support/app.ts";

const BUNDLED = [
  "lucide-react",
  "@react-email/components",
  "better-auth",
  "@better-auth/core",
  "kysely",
  "jose",
  "zod",
  "drizzle-orm",
  "react-markdown",
  "remark-gfm",
  "micromark",
  "unified",
];
const EXTERNAL = ["@electric-sql/pglite", "pg", "stripe", "@react-email/render"];

/** The package names the built server imports at run time, statically or with import(). */
async function packagesImportedByBuild(): Promise<Set<string>> {
  const folder = path.dirname(BUILD_ENTRY);
  const files = (await fs.readdir(folder, { recursive: true })).filter((file) => file.endsWith(".js"));
  const imported = new Set<string>();
  for (const file of files) {
    const code = await fs.readFile(path.join(folder, file), "utf8");
    const specifiers = [
      ...code.matchAll(/^import\s[^;]*?from\s*"([^"]+)";?$/gm),
      ...code.matchAll(/^import\s*"([^"]+)";?$/gm),
      ...code.matchAll(/\bimport\("([^"]+)"\)/g),
    ].map((match) => match[1]!);
    for (const specifier of specifiers) {
      if (specifier.startsWith(".") || specifier.startsWith("node:")) continue;
      const parts = specifier.split("/");
      imported.add(specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!);
    }
  }
  return imported;
}

describe("the server build", () => {
  it("carries the module-heavy packages inside it and imports the file-reading ones from node_modules", async () => {
    const imported = await packagesImportedByBuild();
    for (const name of EXTERNAL) expect(imported, `${name} should stay external`).toContain(name);
    expect(BUNDLED.filter((name) => imported.has(name))).toEqual([]);
  });
});
