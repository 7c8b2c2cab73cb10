// A newcomer's `npm start` (issue 23): `.env` in the working directory is read, the environment
// first; `.env.example` works as it is, blank keys and all; the terminal ends with a short block
// saying what runs and what to do next.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listeningUrl, runServer, waitFor, type ServerProcess } from "../../support/app-process.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");

describe("npm start in a directory holding .env", () => {
  let cwd = "";
  let server: ServerProcess | undefined;
  let url = "";
  beforeAll(async () => {
    cwd = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-calm-start-"));
    const example = await fs.readFile(path.join(ROOT, ".env.example"), "utf8");
    // The example as a newcomer copies it, with a brand of their own and the keys left blank.
    const env = example.replace(/^BRAND_NAME=.*$/m, "BRAND_NAME=Calm Shop");
    await fs.writeFile(path.join(cwd, ".env"), `${env}\nCONFIG_ENCRYPTION_KEY=\nBETTER_AUTH_SECRET=\n`);
    // The environment wins over .env: PORT=3000 there, a free port here.
    server = runServer(
      { PORT: "0", HOST: "127.0.0.1", SUPPORT_EMAIL: "help@calm.example" },
      {
        cwd,
        script: "scripts/start.js",
      },
    );
    url = await listeningUrl(server);
    await waitFor(() => server!.output().includes("Next:"), 30_000, "the start's summary");
  }, 120_000);
  afterAll(async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
    await fs.rm(cwd, { recursive: true, force: true });
  });

  it("takes settings from .env, the environment first, and starts with .env.example's blank keys", async () => {
    const home = await (await fetch(url)).text();
    expect(home).toContain("Calm Shop");
    const contact = await (await fetch(`${url}/contact`)).text();
    expect(contact).toContain("help@calm.example");
    expect(new URL(url).port).not.toBe("3000");
    // The blank keys were generated, as the README says of unset ones.
    await expect(fs.stat(path.join(cwd, "data", "secrets.json"))).resolves.toBeTruthy();
  });

  it("ends with a short block: mode, URL, database, mail, checkout, settings and what to do next", () => {
    const output = server!.output();
    const block = output.slice(output.indexOf("Calm Shop is running."));
    const lines = block.split("\n").filter(Boolean);
    expect(lines[0]).toBe("Calm Shop is running.");
    expect(lines[1]).toMatch(/^ {2}Mode {6}demo \(payments are simulated\)$/);
    expect(lines[2]).toMatch(/^ {2}URL {7}http:\/\/localhost:\d+( \(public: \S+\))?$/);
    expect(lines[3]).toBe(`  Database  embedded PGlite in ${path.join(cwd, "data")}`);
    expect(lines[4]).toBe(`  Mail      files in ${path.join(cwd, "data", "outbox")}`);
    expect(lines[5]).toBe(
      "  Checkout  built-in test checkout: card 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined",
    );
    expect(lines[6]).toMatch(
      new RegExp(`^ {2}Settings  the environment, then ${path.join(cwd, ".env")} \\(\\d+ taken from it\\)$`),
    );
    expect(lines[7]).toBe("Next:");
    expect(block).toContain("npm run doctor");
    expect(lines.length).toBeLessThanOrEqual(12);
  });

  it("npm run doctor reads a stopped store's database itself, without changing it", async () => {
    server!.child.kill("SIGTERM");
    expect(await server!.exited).toBe(0);
    server = undefined;
    const doctor = await promisify(execFile)(
      path.join(ROOT, "node_modules/.bin/tsx"),
      [path.join(ROOT, "scripts/doctor.ts")],
      {
        cwd,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
        timeout: 180_000,
      },
    ).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string }) => error,
    );
    const lines = doctor.stdout.split("\n");
    expect(lines[0]).toBe(
      "✓ settings: demo mode, valid; keys generated into DATA_DIR/secrets.json (set both explicitly before running a second app process)",
    );
    expect(lines[1]).toMatch(/^✓ database: embedded PGlite reachable, all \d+ migrations applied$/);
    expect(lines).toContain(
      "✗ staff: no admin account yet — fix: sign up at http://localhost:3000/admin/login with an address on STAFF_ADMINS and confirm it",
    );
  });
});
