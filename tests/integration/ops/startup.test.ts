import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { blogPosts } from "#server/db/schema/index.ts";
import { loadConfig } from "#server/config.ts";
import { startServices } from "#server/services.ts";
import { makeDataDir, testEnv } from "../../support/app.ts";
import { listeningUrl, runServer, waitFor } from "../../support/app-process.ts";

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
    const url = await listeningUrl(server);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(server.output()).toContain("database migrated");
    await expect(fs.stat(path.join(dataDir, "pglite"))).resolves.toBeTruthy();
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it("keeps DATA_DIR private: the folder 0700 and every file in it, old or new, unreadable by others", async () => {
    const parent = await makeDataDir();
    const dataDir = path.join(parent, "store");
    await fs.mkdir(path.join(dataDir, "outbox"), { recursive: true, mode: 0o755 });
    await fs.writeFile(path.join(dataDir, "outbox", "left-by-an-old-version.eml"), "PrivateKey = x", {
      mode: 0o644,
    });
    await fs.chmod(dataDir, 0o755);
    const server = runServer(testEnv(dataDir));
    const url = await listeningUrl(server);
    // A contact message queues an e-mail to support, which the outbox worker writes as an .eml.
    const sent = await fetch(`${url}/api/send-contact-email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Ada", email: "ada@example.com", subject: "Hi", message: "Hello there" }),
    });
    expect(sent.status).toBe(200);
    await waitFor(
      async () => (await fs.readdir(path.join(dataDir, "outbox"))).length > 1,
      20_000,
      "the e-mail",
    );
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);

    const entries = await fs.readdir(dataDir, { recursive: true });
    expect(entries.length).toBeGreaterThan(10); // PGlite's files, secrets.json, the outbox
    const readableByOthers = [];
    for (const entry of ["", ...entries]) {
      const stat = await fs.lstat(path.join(dataDir, entry));
      if (!stat.isSymbolicLink() && (stat.mode & 0o077) !== 0)
        readableByOthers.push(`${entry || "."} ${(stat.mode & 0o777).toString(8)}`);
    }
    expect(readableByOthers).toEqual([]);
    expect((await fs.stat(dataDir)).mode & 0o777).toBe(0o700);
    await fs.rm(parent, { recursive: true, force: true });
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
