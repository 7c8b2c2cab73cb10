// The operator's guide cannot drift from the code (issue 23): every command docs/operating.md
// names — `npm run …` scripts, `vpn` subcommands and flags, `doctor`, `backup` and `restore` flags,
// the agent's subcommands and flags — exists, as the commands' own --help and the code say;
// `add-server` prints the guide's `setup` line; the first sale checklist is what `doctor` checks.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDoctor } from "#server/domain/ops/doctor/run.ts";
import { storeChecks } from "#server/domain/ops/doctor/store.ts";
import { nodeSetupCommand } from "#app/lib/node-setup-advice.ts";
import { serverCommandSchema } from "#server/domain/vpn/server-admin.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { adminCommand } from "../../support/vpn-admin.ts";
import { addTestVpnServer } from "../../support/vpn.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const guide = fs.readFileSync(path.join(ROOT, "docs/operating.md"), "utf8");
const scripts = Object.keys(
  (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: object }).scripts,
);

/** Every shell command the guide shows: each line of its code blocks and each inline code span, cut at `&&`, `;`, `|` and comments. */
function guideCommands(): string[] {
  const blocks = [...guide.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].flatMap((match) => match[1]!.split("\n"));
  const prose = guide.replace(/```[a-z]*\n[\s\S]*?```/g, "");
  const inline = [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);
  return [...blocks, ...inline]
    .flatMap((line) => line.replace(/\s#\s.*$/, "").split(/&&|;|\|/))
    .map((command) => command.trim())
    .filter(Boolean);
}

/** What follows `marker` in each command that has it, as words. */
function invocations(marker: RegExp): string[][] {
  return guideCommands().flatMap((command) => {
    const match = marker.exec(command);
    return match
      ? [
          command
            .slice(match.index + match[0].length)
            .trim()
            .split(/\s+/)
            .filter(Boolean),
        ]
      : [];
  });
}

const flagsOf = (words: string[]) =>
  words.filter((word) => /^--[a-z]/.test(word)).map((word) => word.split("=")[0]!);

/** The flags a command's --help names. */
async function helpFlags(script: string, args: string[] = []): Promise<Set<string>> {
  const { stdout } = await promisify(execFile)(
    path.join(ROOT, "node_modules/.bin/tsx"),
    [script, ...args, "--help"],
    {
      cwd: ROOT,
      timeout: 120_000,
    },
  );
  return new Set([...stdout.matchAll(/--[a-z][a-z0-9-]*/g)].map((match) => match[0]));
}

describe("docs/operating.md names only what exists", () => {
  it("every npm run script it names is in package.json", () => {
    const named = [...new Set(invocations(/\bnpm run\b/).map((words) => words[0]!))];
    expect(named).toEqual(
      expect.arrayContaining(["vpn", "doctor", "backup", "restore", "build", "build:agent"]),
    );
    expect(named.filter((script) => !scripts.includes(script))).toEqual([]);
  });

  it("every vpn subcommand and flag it names exists", async () => {
    const uses = invocations(/\bnpm run vpn --/);
    expect(uses.length).toBeGreaterThan(3);
    const subcommands = serverCommandSchema.options.map((option) => option.shape.command.value as string);
    expect(uses.map((words) => words[0]).filter((sub) => !subcommands.includes(sub!))).toEqual([]);
    const known = await helpFlags("scripts/vpn.ts");
    expect(uses.flatMap(flagsOf).filter((flag) => !known.has(flag))).toEqual([]);
  });

  it.each([
    ["doctor", "scripts/doctor.ts"],
    ["backup", "scripts/backup.ts"],
    ["restore", "scripts/restore.ts"],
  ])("every npm run %s flag it names exists", async (script, file) => {
    const uses = invocations(new RegExp(`\\bnpm run ${script} --`));
    expect(uses.length).toBeGreaterThan(0);
    const known = await helpFlags(file);
    expect(uses.flatMap(flagsOf).filter((flag) => !known.has(flag))).toEqual([]);
  });

  it("every agent subcommand and flag it names exists", async () => {
    // Where the guide runs the agent: `node …/naijalink-agent.mjs …`, or its name as a command.
    const uses = invocations(/(?:^|\s)(?:node\s+\S*naijalink-agent\.mjs|naijalink-agent)(?=\s|$)/);
    expect(uses.length).toBeGreaterThan(2);
    const usage = (
      await promisify(execFile)(path.join(ROOT, "node_modules/.bin/tsx"), ["agent/index.ts", "--help"], {
        cwd: ROOT,
        timeout: 120_000,
      })
    ).stdout;
    const subcommands = new Set([
      "run",
      ...[...usage.matchAll(/naijalink-agent ([a-z]+) /g)].map((match) => match[1]!),
    ]);
    const known = new Set([...usage.matchAll(/--[a-z][a-z0-9-]*/g)].map((match) => match[0]));
    const named = uses.map((words) => words[0]).filter((word) => word && !word.startsWith("-"));
    expect(named).toEqual(expect.arrayContaining(["setup", "uninstall"]));
    expect(named.filter((sub) => !subcommands.has(sub!))).toEqual([]);
    expect(uses.flatMap(flagsOf).filter((flag) => !known.has(flag))).toEqual([]);
  });

  it("add-server prints the same setup line as the guide", () => {
    expect(guide).toContain(nodeSetupCommand("https://shop.example", "203.0.113.10:51820"));
  });
});

describe("the first sale checklist", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it("names exactly what npm run doctor checks, in its order", async () => {
    const section = guide.slice(guide.indexOf("## 13. First sale checklist"));
    const checklist = [...section.matchAll(/^- \*\*(.+?)\*\*:/gm)].map((match) => match[1]!);
    expect(checklist.length).toBeGreaterThan(5);
    // The store the guide builds: one real node, ng-lagos-1, the placeholder removed.
    await addTestVpnServer(app.services.db, { name: "ng-lagos-1", octet: 97 });
    expect((await adminCommand(app, { command: "remove-server", server: "ng-lagos-dev" })).status).toBe(200);
    const config = app.config;
    const checks = await runDoctor(config, {
      store: () => storeChecks(app.services.db, app.services.dbKind, config),
    });
    expect(checks.map((check) => check.name)).toEqual(checklist);
  });
});
