import { ESLint } from "eslint";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The fixtures name the UI folder in pieces, so this file itself imports nothing from it.
const APP_ALIAS = ["#", "app"].join("");
const APP_RELATIVE = ["..", "app"].join("/");

// server/ and agent/ never import app/; core/ imports neither app/ nor server/ (decision 127). The
// rule is eslint.config.js's `naijalink/import-boundary`; these run it through ESLint's Node API.

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RULE = "naijalink/import-boundary";

/** Only the boundary rule: the rest of the configuration is `npm run lint`'s business. */
const eslint = new ESLint({ cwd: ROOT, ruleFilter: ({ ruleId }) => ruleId === RULE });

async function boundaryErrors(source: string, file: string) {
  const [result] = await eslint.lintText(source, { filePath: path.join(ROOT, file) });
  return result!.messages.map(({ ruleId, line, message }) => ({ ruleId, line, message }));
}

describe("import boundaries", () => {
  it("fails a file under server/ that imports app/, by alias, relative path, re-export or import()", async () => {
    const source = [
      `import { findPlan } from "${APP_ALIAS}/lib/plans.ts";`,
      `import type { Notice } from "${APP_RELATIVE}/lib/notice.ts";`,
      `export { cn } from "${APP_RELATIVE}/lib/utils.ts";`,
      `export const later = () => import("${APP_ALIAS}/lib/meta.ts");`,
      'import { formatUsd } from "#core/format.ts";',
      'import { createApp } from "./app.ts";',
      "export const used: unknown[] = [findPlan, formatUsd, createApp, null as Notice | null];",
    ].join("\n");
    const errors = await boundaryErrors(source, "server/x.ts");
    expect(errors.map(({ ruleId, line }) => ({ ruleId, line }))).toEqual(
      [1, 2, 3, 4].map((line) => ({ ruleId: RULE, line })),
    );
    expect(errors[0]!.message).toContain(`server/x.ts must not import app/ (${APP_ALIAS}/lib/plans.ts)`);
  });

  it("fails core/ importing app/ or server/, and an agent/ file importing app/", async () => {
    const core = `import { PLANS } from "${APP_ALIAS}/lib/plans.ts";\nimport { db } from "../server/db/client.ts";\nexport const x = [PLANS, db];`;
    expect((await boundaryErrors(core, "core/x.ts")).map(({ message }) => message)).toEqual([
      expect.stringContaining("core/x.ts must not import app/"),
      expect.stringContaining("core/x.ts must not import server/"),
    ]);
    const agent = `import { regionLabel } from "${APP_RELATIVE}/lib/meta.ts";\nexport const x = regionLabel;`;
    expect(await boundaryErrors(agent, "agent/x.ts")).toHaveLength(1);
  });

  // Parsing ~250 files takes a while on a busy machine.
  it(
    "finds no import of app/ in server/ or agent/, nor of app/ or server/ in core/",
    { timeout: 240_000 },
    async () => {
      const results = await eslint.lintFiles(["server", "agent", "core"]);
      expect(results.length).toBeGreaterThan(200);
      const found = results.flatMap((result) =>
        result.messages.map(
          (message) => `${path.relative(ROOT, result.filePath)}:${message.line} ${message.message}`,
        ),
      );
      expect(found).toEqual([]);
    },
  );
});
