// The deployment files, checked as far as a machine without a Docker engine can (decision 082):
// compose.yaml parses and has its services, the image and the systemd unit run the commands the
// npm scripts run, and systemd accepts the unit.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "#server/config.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");
const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
/** `npm start` as the variables it sets (`NAME=value` before the command) and the command. */
const start = {
  environment: scripts.start!.split(" ").filter((word) => /^[A-Z_]+=/.test(word)),
  command: scripts.start!.replace(/^([A-Z_]+=\S+ )+/, ""),
};
// js-yaml is in node_modules already (through eslint); no YAML parser is a dependency of ours.
const yaml = createRequire(import.meta.url)("js-yaml") as { load(text: string): unknown };

interface ComposeService {
  image?: string;
  build?: string;
  init?: boolean;
  ports?: string[];
  volumes?: string[];
  deploy?: { replicas?: number };
  depends_on?: Record<string, { condition: string }> | string[];
  environment?: Record<string, string>;
}

/** Dockerfile instructions in order, continuation lines joined. */
function dockerInstructions(text: string): Array<{ keyword: string; rest: string }> {
  return text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const [keyword = "", ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), rest: rest.join(" ") };
    });
}

describe("compose.yaml", () => {
  const compose = yaml.load(read("compose.yaml")) as { services: Record<string, ComposeService> };
  const { postgres, app, caddy } = compose.services;

  it("runs two app replicas over one PostgreSQL 15, reached only through Caddy", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["app", "caddy", "postgres"]);
    expect(postgres?.image).toMatch(/^postgres:15/);
    expect(app?.build).toBe(".");
    expect(app?.deploy?.replicas).toBe(2);
    expect(app?.ports).toBeUndefined();
    expect(app?.depends_on).toEqual({ postgres: { condition: "service_healthy" } });
    expect(new URL(app!.environment!.DATABASE_URL!).host).toBe("postgres:5432");
    expect(caddy?.volumes).toContain("./deploy/Caddyfile:/etc/caddy/Caddyfile:ro");
    expect(caddy?.environment?.NAIJALINK_APP_HOST).toBe("app");
  });

  it("gives every replica the same keys, required rather than generated, and trusts exactly one proxy", () => {
    for (const key of ["CONFIG_ENCRYPTION_KEY", "BETTER_AUTH_SECRET"])
      expect(app?.environment?.[key]).toMatch(new RegExp(`^\\$\\{${key}:\\?`));
    expect(loadConfig({ TRUST_PROXY: app?.environment?.TRUST_PROXY }).TRUST_PROXY).toBe(1);
    expect(read("deploy/Caddyfile")).toContain("TRUST_PROXY=1");
  });
});

describe("Dockerfile", () => {
  const instructions = dockerInstructions(read("Dockerfile"));
  const stages = instructions.filter((instruction) => instruction.keyword === "FROM");
  const finalStage = instructions.slice(instructions.lastIndexOf(stages.at(-1)!));

  it("builds with `npm run build` in a build stage and runs as a user other than root", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(scripts.build).toBeDefined();
    const buildStage = instructions.slice(0, instructions.indexOf(stages[1]!));
    expect(buildStage.map((instruction) => `${instruction.keyword} ${instruction.rest}`)).toContain(
      "RUN npm run build",
    );
    const user = finalStage.filter((instruction) => instruction.keyword === "USER").at(-1);
    expect(user?.rest).toBeDefined();
    expect(["root", "0"]).not.toContain(user!.rest);
  });

  it("starts with what `npm start` runs and checks health on /readyz", () => {
    const cmd = finalStage.find((instruction) => instruction.keyword === "CMD")!;
    expect((JSON.parse(cmd.rest) as string[]).join(" ")).toBe(start.command);
    const environment = finalStage
      .filter((instruction) => instruction.keyword === "ENV")
      .flatMap((instruction) => instruction.rest.split(/\s+/));
    expect(environment).toEqual(expect.arrayContaining(start.environment));
    const healthcheck = finalStage.find((instruction) => instruction.keyword === "HEALTHCHECK")!;
    expect(healthcheck.rest).toContain("/readyz");
  });
});

describe("deploy/naijalink.service", () => {
  const unit = read("deploy/naijalink.service");
  const setting = (name: string) =>
    [...unit.matchAll(new RegExp(`^${name}=(.*)$`, "gm"))].map((match) => match[1]!);

  it("runs what `npm start` runs, hardened, writing only DATA_DIR", () => {
    expect(setting("ExecStart")).toEqual([`/usr/bin/${start.command}`]);
    expect(setting("Environment")).toEqual(expect.arrayContaining(start.environment));
    expect(setting("NoNewPrivileges")).toEqual(["yes"]);
    expect(setting("ProtectSystem")).toEqual(["strict"]);
    expect(setting("User")).toEqual(["naijalink"]);
    const dataDir = setting("Environment")
      .map((assignment) => /^DATA_DIR=(.*)$/.exec(assignment)?.[1])
      .find(Boolean);
    expect(setting("ReadWritePaths")).toEqual([dataDir]);
    expect(setting("StateDirectory").map((name) => `/var/lib/${name}`)).toEqual([dataDir]);
  });

  it("passes systemd-analyze verify", () => {
    const analyze = spawnSync("systemd-analyze", ["--version"]);
    if (analyze.error) throw new Error("this test needs systemd-analyze (Debian package systemd)");
    const result = spawnSync("systemd-analyze", ["verify", path.join(ROOT, "deploy/naijalink.service")], {
      encoding: "utf8",
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });
});
