import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { blogPosts } from "#server/db/schema/index.ts";
import { loadConfig } from "#server/config.ts";
import { startServices } from "#server/services.ts";
import { makeDataDir, testEnv } from "../support/app.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

function runServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ["server.js"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("timed out");
}

describe("start-up", () => {
  it("refuses a bad setting with a message that names it", async () => {
    const dataDir = await makeDataDir();
    const server = runServer({ ...testEnv(dataDir), PORT: "not-a-port" });
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/Invalid configuration/);
    expect(server.output()).toMatch(/PORT/);
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it("refuses to start in live mode without Stripe, SMTP and an https PUBLIC_URL, naming each", async () => {
    const dataDir = await makeDataDir();
    const { PUBLIC_URL: _demoUrl, ...env } = testEnv(dataDir);
    const server = runServer({ ...env, NAIJALINK_MODE: "live" });
    expect(await server.exited).toBe(1);
    for (const name of ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "SMTP_URL", "PUBLIC_URL"])
      expect(server.output()).toContain(`${name}: required when NAIJALINK_MODE=live`);
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it("creates and migrates the database on an empty DATA_DIR, then stops cleanly on SIGTERM", async () => {
    const dataDir = await makeDataDir();
    const server = runServer(testEnv(dataDir));
    await waitFor(() => /listening on (http:\/\/\S+)/.test(server.output()), 80_000);
    const url = server.output().match(/listening on (http:\/\/[^\s"]+)/)![1]!;
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(server.output()).toContain("database migrated");
    await expect(fs.stat(path.join(dataDir, "pglite"))).resolves.toBeTruthy();
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it("keeps the data across a restart", async () => {
    const dataDir = await makeDataDir();
    const config = loadConfig(testEnv(dataDir, { LOG_LEVEL: "silent" }));
    const first = await startServices(config, { backgroundJobs: false });
    await first.services.db.insert(blogPosts).values({ title: "Kept", slug: "kept", content: "still here" });
    await first.close();
    const second = await startServices(config, { backgroundJobs: false });
    const rows = await second.services.db.select().from(blogPosts);
    expect(rows.map((row) => row.slug)).toEqual(["kept"]);
    await second.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });
});
