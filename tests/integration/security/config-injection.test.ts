// Issue 25, config injection: nothing an admin (or a stolen admin session) types, nothing a node
// reports and nothing written straight into the database can put a line of its own into a
// customer's WireGuard config (a `PostUp =` that wg-quick runs as root).
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activatingFetchHeaders } from "#core/config-activation.ts";
import { staffAuditLog, vpnServers } from "#server/db/schema/index.ts";
import { DNS_RULE } from "#server/domain/vpn/server-fields.ts";
import { rotateNodeToken } from "#server/domain/vpn/servers.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { addTestSubscription, addTestVpnServer, deviceRow, issueTestDevice } from "../../support/vpn.ts";
import { adminCommand } from "../../support/vpn-admin.ts";
import { createAccount, STAFF_EMAIL } from "../../support/staff.ts";

const INJECTED = "PostUp = touch /tmp/x";
const INJECTIONS = [
  `1.1.1.1\n${INJECTED}\n#`,
  `1.1.1.1\r${INJECTED}`,
  `1.1.1.1\u2028${INJECTED}`,
  "1.1.1.1\u202e",
];

describe.each(databaseKinds)("config injection on %s", (kind) => {
  let app: TestApp;
  let cookie: string;
  beforeAll(async () => {
    app = await createTestApp({ kind });
    cookie = (await createAccount(app, STAFF_EMAIL)).cookie;
  }, 240_000);
  afterAll(async () => {
    await app?.close();
  });

  const staffPost = async (action: string, body: unknown) => {
    const response = await app.request(`/api/admin/servers/${action}`, { json: body, headers: { cookie } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const serversNamed = (name: string) =>
    app.services.db.select().from(vpnServers).where(eq(vpnServers.name, name));
  const auditEntries = () => app.services.db.select().from(staffAuditLog).orderBy(desc(staffAuditLog.id));
  const fields = {
    name: "ng-inject-1",
    endpoint: "203.0.113.30:51820",
    ipv4: "10.30.0.0/24",
    ipv6: "fd30::/64",
    reason: "new capacity",
  };

  it("the staff API refuses a dns (or any other server field) with a line break or control character, and records nothing", async () => {
    const before = (await auditEntries()).length;
    const refusals = [
      ...INJECTIONS.map((dns) => ({ ...fields, dns })),
      { ...fields, region: `ng-lagos\n${INJECTED}` },
      { ...fields, endpoint: `203.0.113.30:51820\n${INJECTED}` },
      { ...fields, ipv4: "10.30.0.0/24\n" },
      { ...fields, ipv6: "fd30::/64\n" },
      { ...fields, name: "ng-inject-1\n" },
      { ...fields, publicKey: `${"A".repeat(43)}=\n${INJECTED}` },
      { ...fields, dns: "vpn.example.com" },
      { ...fields, dns: "1.1.1.1, 1.0.0.1, 8.8.8.8, 8.8.4.4, 9.9.9.9" },
    ];
    for (const body of refusals) {
      const refused = await staffPost("add", body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body).toEqual({ error: "Invalid request", message: expect.any(String) });
    }
    expect((await staffPost("add", { ...fields, dns: INJECTIONS[0] })).body.message).toContain(DNS_RULE);
    expect(await serversNamed("ng-inject-1")).toEqual([]);
    expect(await auditEntries()).toHaveLength(before);
  });

  it("`npm run vpn`'s server path refuses the same values for add-server and set-endpoint", async () => {
    const { reason: _reason, ...command } = fields;
    for (const dns of INJECTIONS) {
      const refused = await adminCommand(app, { command: "add-server", ...command, dns });
      expect(refused.status, JSON.stringify(dns)).toBe(400);
    }
    const server = await addTestVpnServer(app.services.db, { name: "ng-inject-cli", octet: 31 });
    const moved = await adminCommand(app, {
      command: "set-endpoint",
      server: server.name,
      endpoint: `203.0.113.31:51820\n${INJECTED}`,
    });
    expect(moved.status).toBe(400);
    expect((await serversNamed("ng-inject-cli"))[0]!.endpoint).toBe(server.endpoint);
    expect(await serversNamed("ng-inject-1")).toEqual([]);
  });

  it("a server's audit entry and the servers page show every field add-server set, dns included", async () => {
    const added = await staffPost("add", {
      ...fields,
      name: "ng-inject-ok",
      dns: "1.1.1.1,  2606:4700:4700::1111",
    });
    expect(added.status).toBe(200);
    const server = added.body.server as { id: string };
    const [entry] = await app.services.db
      .select()
      .from(staffAuditLog)
      .where(eq(staffAuditLog.targetId, server.id));
    expect(entry!.details).toEqual({
      name: "ng-inject-ok",
      region: "ng-lagos",
      endpoint: "203.0.113.30:51820",
      ipv4: "10.30.0.0/24",
      ipv6: "fd30::/64",
      dns: "1.1.1.1, 2606:4700:4700::1111",
      publicKey: null,
      clientMtu: 1280,
      alternatePorts: [443],
      nodeResolver: true,
    });
    const page = await (await app.request("/admin/servers", { headers: { cookie } })).text();
    expect(page).toContain("1.1.1.1, 2606:4700:4700::1111");
    const audit = await (await app.request("/admin/audit?action=server.add", { headers: { cookie } })).text();
    expect(audit).toContain("2606:4700:4700::1111");
    expect(audit).toContain("fd30::/64");
  });

  it("a dns written into the database directly never reaches a config: the download and QR answer 503 and activate nothing", async () => {
    // The only server that takes devices now.
    await app.services.db.update(vpnServers).set({ status: "draining" });
    const server = await addTestVpnServer(app.services.db, { name: "ng-inject-db", octet: 32 });
    const issued = await issueTestDevice(
      app.services,
      await addTestSubscription(app.services.db, { customerEmail: "inject@example.com" }),
    );
    expect(issued.server.id).toBe(server.id);
    const browser = activatingFetchHeaders;
    for (const dns of INJECTIONS) {
      await app.services.db.update(vpnServers).set({ dns }).where(eq(vpnServers.id, server.id));
      for (const url of [
        `/api/configs/${issued.downloadToken}`,
        `/api/configs/${issued.downloadToken}/qr.svg`,
      ]) {
        const response = await app.request(url, { headers: browser });
        const text = await response.text();
        expect(response.status, `${url} ${JSON.stringify(dns)}`).toBe(503);
        expect(JSON.parse(text)).toEqual({ error: "Configuration unavailable", message: expect.any(String) });
        expect(text).not.toContain("PostUp");
      }
    }
    expect((await deviceRow(app.services.db, issued.device.id)).activatedAt).toBeNull();
    expect(app.log.text).toContain("the dns setting of VPN server");
    expect(app.log.text).not.toContain(INJECTED);

    // Checked even while configs name the node's resolver; with the operator's opt-out, they name it.
    await app.services.db
      .update(vpnServers)
      .set({ dns: "1.1.1.1", nodeResolver: false })
      .where(eq(vpnServers.id, server.id));
    const config = await (await app.request(`/api/configs/${issued.downloadToken}`)).text();
    expect(config).toContain("DNS = 1.1.1.1\n");
  });

  it("a node may not report an unspecified, loopback, link-local, multicast or broadcast exit address", async () => {
    const server = await addTestVpnServer(app.services.db, { name: "ng-inject-exit", octet: 33 });
    const { nodeToken } = (await rotateNodeToken(app.services.db, server.name))!;
    const report = (exitAddresses: string[]) =>
      app.request("/api/nodes/status", {
        json: { publicKey: server.publicKey, exitAddresses },
        headers: { authorization: `Bearer ${nodeToken}` },
      });
    expect((await report(["198.51.100.33"])).status).toBe(200);
    for (const address of [
      "0.0.0.0",
      "::",
      "127.0.0.1",
      "127.8.9.10",
      "::1",
      "169.254.1.1",
      "fe80::1",
      "224.0.0.1",
      "ff02::1",
      "255.255.255.255",
      "::ffff:127.0.0.1",
    ]) {
      const refused = await report(["198.51.100.34", address]);
      expect(refused.status, address).toBe(400);
      expect(await refused.json()).toMatchObject({ error: "Invalid request" });
      const setExit = await adminCommand(app, {
        command: "set-exit",
        server: server.name,
        addresses: [address],
      });
      expect(setExit.status, address).toBe(400);
    }
    expect((await serversNamed("ng-inject-exit"))[0]!.exitAddresses).toEqual(["198.51.100.33"]);
  });
});

describe("the `npm run vpn` command line", () => {
  it("refuses add-server with a dns holding a line break before it sends or opens anything", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-vpn-cli-"));
    try {
      const refused = await promisify(execFile)(
        process.execPath,
        [
          "--import",
          "tsx",
          "scripts/vpn.ts",
          "add-server",
          "--name",
          "ng-inject-cli-1",
          "--endpoint",
          "203.0.113.35:51820",
          "--ipv4",
          "10.35.0.0/24",
          "--ipv6",
          "fd35::/64",
          "--dns",
          INJECTIONS[0]!,
        ],
        { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn" }, timeout: 60_000 },
      ).catch((error: { code: number; stderr: string; stdout: string }) => error);
      expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining(DNS_RULE) });
      // Nothing was opened: no database was created in DATA_DIR.
      expect(await fs.readdir(dataDir)).toEqual([]);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
