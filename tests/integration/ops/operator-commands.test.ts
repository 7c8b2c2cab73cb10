// The operator's commands (issue 23, decision 095): every one answers --help and refuses an
// unknown flag without a stack trace; `npm run vpn -- move-devices` and `revoke-devices` empty the
// development server so that `remove-server` succeeds.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vpnServers } from "#server/db/schema/index.ts";
import { createTestApp, startTestServer, type TestApp, type TestServer } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { adminCommand } from "../../support/vpn-admin.ts";
import { addTestSubscription, addTestVpnServer, deviceRow, issueTestDevice } from "../../support/vpn.ts";
import { queuedEmails } from "../../support/staff.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");

/** A script as `npm run` starts it (tsx), with only the given settings. */
function runScript(script: string, args: string[], env: Record<string, string> = {}) {
  return promisify(execFile)(path.join(ROOT, "node_modules/.bin/tsx"), [script, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "warn", ...env },
    timeout: 120_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
}

describe("every operator command's command line", () => {
  const commands: Array<[string, string, string[]]> = [
    ["npm run vpn", "scripts/vpn.ts", []],
    ["npm run vpn (a command)", "scripts/vpn.ts", ["list-servers"]],
    ["npm run doctor", "scripts/doctor.ts", []],
    ["npm run backup", "scripts/backup.ts", []],
    ["npm run restore", "scripts/restore.ts", []],
    ["the agent", "agent/index.ts", []],
    ["the agent's setup", "agent/index.ts", ["setup"]],
    ["the agent's uninstall", "agent/index.ts", ["uninstall"]],
  ];

  it.each(commands)("%s answers --help with its usage", async (_name, script, args) => {
    const result = await runScript(script, [...args, "--help"]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/^Usage: /);
    expect(result.code).toBe(0);
  });

  it.each(commands)(
    "%s answers an unknown flag with one line and the usage, exit 2",
    async (_name, script, args) => {
      const result = await runScript(script, [...args, "--no-such-flag"]);
      const [first, second] = result.stderr.split("\n");
      expect(first).toBe("Unknown option '--no-such-flag'");
      expect(second).toMatch(/^Usage: /);
      expect(result.stderr).not.toMatch(/\n\s+at |ERR_PARSE_ARGS/);
      expect(result.code).toBe(2);
    },
  );
});

/** The newest `device-relocated` message to `email` in a running server's file outbox. */
async function movedEmail(dataDir: string, email: string): Promise<string> {
  const outbox = path.join(dataDir, "outbox");
  const names = (await fs.readdir(outbox)).filter((name) => name.includes("device-relocated")).sort();
  for (const name of names.reverse()) {
    const text = await fs.readFile(path.join(outbox, name), "utf8");
    if (text.includes(`To: ${email}`)) return text;
  }
  throw new Error(`no device-relocated e-mail to ${email} in ${outbox} (${names.join(", ")})`);
}

/** An attachment's text, base64 or quoted-printable as the .eml carries it. */
function decodedAttachment(eml: string, filename: string): string {
  const at = eml.search(new RegExp(`filename=${filename.replaceAll(".", "\\.")}`));
  expect(at, `${filename} attached`).toBeGreaterThan(0);
  const part = eml.slice(eml.lastIndexOf("Content-Type:", at), eml.indexOf("\n--", at));
  const [headers = "", ...body] = part.split(/\r?\n\r?\n/);
  const raw = body.join("\n\n");
  if (/Content-Transfer-Encoding: base64/i.test(headers))
    return Buffer.from(raw.replace(/\s+/g, ""), "base64").toString("utf8");
  return raw
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

describe("emptying the development server from the command line", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ backgroundJobs: false });
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("move-devices moves its rehearsal devices to the named server (owners e-mailed), then remove-server succeeds", async () => {
    const { services } = server;
    const owners = ["rehearsal1@example.com", "rehearsal2@example.com"];
    const rehearsal = [];
    for (const customerEmail of owners)
      rehearsal.push(
        await issueTestDevice(
          services,
          await addTestSubscription(services.db, { customerEmail, deviceLimit: 1 }),
        ),
      );
    expect(rehearsal.map((issued) => issued.server.name)).toEqual(["ng-lagos-dev", "ng-lagos-dev"]);
    const real = await addTestVpnServer(services.db, { name: "ng-lagos-1", octet: 91 });
    const vpn = (...args: string[]) =>
      runScript("scripts/vpn.ts", [...args, "--url", server.url], { DATA_DIR: server.dataDir });

    const refused = await vpn("remove-server", "ng-lagos-dev");
    expect(refused.stderr).toContain("still holds 2 live devices");
    expect(refused.code).toBe(1);

    const moved = await vpn("move-devices", "ng-lagos-dev", "--to", "ng-lagos-1");
    expect(moved.stdout).toContain(
      "VPN server ng-lagos-dev: 2 devices moved to ng-lagos-1; each owner was e-mailed the new config.",
    );
    expect(moved.code).toBe(0);
    for (const issued of rehearsal)
      expect((await deviceRow(services.db, issued.device.id)).vpnServerId).toBe(real.id);
    const app = { services } as TestApp;
    for (const owner of owners)
      expect((await queuedEmails(app, owner)).map((email) => email.kind)).toContain("device-relocated");

    // What the owner receives (the demo's file outbox): the new config attached, its QR code, and
    // the advice to switch the old tunnel off first (decision 130).
    await services.mail.drain();
    const eml = await movedEmail(server.dataDir, owners[0]!);
    // Headers fold long lines (RFC 5322): unfolded, the subject reads as it was written.
    expect(eml.replace(/\r?\n[ \t]+/g, " ")).toContain(
      "Subject: NaijaLink moved Device 1 to another server: its new config is attached",
    );
    expect(eml).toMatch(/Content-Disposition: attachment;\s+filename=NaijaLink1\.conf/);
    expect(eml).toMatch(/Content-Type: image\/png;\s+name=config-qr\.png/);
    expect(
      eml
        .replace(/=\r?\n/g, "")
        .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
        .replace(/\s+/g, " "),
    ).toContain("switch the old tunnel off first");
    const config = decodedAttachment(eml, "NaijaLink1.conf");
    expect(config).toContain(`Address = ${(await deviceRow(services.db, rehearsal[0]!.device.id)).ipv4}/32`);
    expect(config).toContain("Endpoint = 203.0.113.10:51820");
    expect(config).toMatch(/PrivateKey = [A-Za-z0-9+/]{43}=/);

    const listed = await vpn("list-servers");
    const lines = listed.stdout.trim().split("\n");
    expect(lines.find((line) => line.startsWith("ng-lagos-dev "))).toContain(
      "retired (development)  takes no new devices",
    );
    expect(lines.find((line) => line.startsWith("ng-lagos-1 "))).toContain(
      "awaiting its node  takes new devices",
    );

    const removed = await vpn("remove-server", "ng-lagos-dev");
    expect(removed.stdout).toContain("VPN server ng-lagos-dev removed");
    expect(removed.code).toBe(0);
  });
});

describe.each(databaseKinds)("revoke-devices on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
  }, 300_000);
  afterAll(async () => {
    await app?.close();
  });

  it("revokes every live device of a drained server in one command (owners e-mailed), then remove-server succeeds; an active real server is refused", async () => {
    const real = await addTestVpnServer(app.services.db, { name: "ng-lagos-1", octet: 92 });
    const issued = await issueTestDevice(
      app.services,
      await addTestSubscription(app.services.db, { customerEmail: "owner@example.com", deviceLimit: 1 }),
    );
    expect(issued.server.id).toBe(real.id);

    const active = await adminCommand(app, { command: "revoke-devices", server: "ng-lagos-1" });
    expect(active.status).toBe(409);
    expect(await active.json()).toMatchObject({ message: expect.stringContaining("Drain ng-lagos-1 first") });
    expect((await deviceRow(app.services.db, issued.device.id)).revokedAt).toBeNull();

    expect((await adminCommand(app, { command: "drain-server", server: "ng-lagos-1" })).status).toBe(200);
    const revoked = await adminCommand(app, { command: "revoke-devices", server: "ng-lagos-1" });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toEqual({ emptied: "ng-lagos-1", revoked: 1 });
    expect((await deviceRow(app.services.db, issued.device.id)).revokedAt).not.toBeNull();
    expect((await queuedEmails(app, "owner@example.com")).map((email) => email.kind)).toContain(
      "device-revoked",
    );

    const removed = await adminCommand(app, { command: "remove-server", server: "ng-lagos-1" });
    expect(await removed.json()).toEqual({ removed: "ng-lagos-1" });
    expect(await app.services.db.select().from(vpnServers).where(eq(vpnServers.id, real.id))).toEqual([]);
  });

  it("refuses a bad command: an unknown target, or moving a server onto itself, changes nothing", async () => {
    const unknown = await adminCommand(app, {
      command: "move-devices",
      server: "ng-lagos-dev",
      to: "ng-nowhere",
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    const self = await adminCommand(app, {
      command: "move-devices",
      server: "ng-lagos-dev",
      to: "ng-lagos-dev",
    });
    expect(self.status).toBe(409);
    const malformed = await adminCommand(app, { command: "revoke-devices" });
    expect(malformed.status).toBe(400);
  });
});
