// `npm run vpn -- set-mtu / set-ports / set-dns` as an operator types them (issue 22, decision 090):
// the real command line against a running server, its words for each change, and a bad value
// refused before anything is sent.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamingServices, vpnServers } from "#server/db/schema/index.ts";
import { startTestServer, type TestServer } from "../../support/app.ts";
import { recordStreamingResults } from "#server/domain/vpn/streaming-checks.ts";
import { addTestVpnServer } from "../../support/vpn.ts";

describe("the `npm run vpn` client-settings commands", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ backgroundJobs: false });
    await addTestVpnServer(server.services.db, { name: "ng-cli-settings", octet: 62 });
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** Runs the command line with the server's DATA_DIR (its admin token) and address. */
  const vpn = (...args: string[]) =>
    promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "scripts/vpn.ts", ...args, "--url", server.url],
      {
        env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "warn" },
        timeout: 60_000,
      },
    ).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  const row = async () =>
    (await server.services.db.select().from(vpnServers).where(eq(vpnServers.name, "ng-cli-settings")))[0]!;

  it("sets the MTU, the alternate ports and the DNS, and lists them", async () => {
    const mtu = await vpn("set-mtu", "ng-cli-settings", "1400");
    expect(mtu).toMatchObject({ code: 0 });
    // Decision 129: the running agent applies it; nothing claims the node has it already.
    expect(mtu.stdout).toContain(
      "VPN server ng-cli-settings: MTU 1400 for its node's interface and its clients. Its running agent applies it within seconds; `npm run vpn -- list-servers` shows when it has. Configs carry the new MTU once the node has applied it;",
    );
    const ports = await vpn("set-ports", "ng-cli-settings", "443,53");
    expect(ports.stdout).toContain("is to accept WireGuard on UDP 443, 53 besides its endpoint's port.");
    const dns = await vpn("set-dns", "ng-cli-settings", "9.9.9.9,2620:FE::FE");
    expect(dns.stdout).toContain("configs name 9.9.9.9, 2620:fe::fe for DNS");
    expect(await row()).toMatchObject({
      clientMtu: 1400,
      alternatePorts: [443, 53],
      nodeResolver: false,
      dns: "9.9.9.9, 2620:fe::fe",
    });
    const list = await vpn("list-servers");
    expect(list.stdout).toMatch(
      /ng-cli-settings .*MTU 1400 \(node still on 1280 since \d{4}-\d\d-\d\d \d\d:\d\d UTC\) {2}also UDP 443,53 {2}DNS 9\.9\.9\.9, 2620:fe::fe {2}node has not reported its settings \(settings version 4\)/,
    );
    expect((await vpn("set-ports", "ng-cli-settings", "none")).code).toBe(0);
    expect((await row()).alternatePorts).toEqual([]);
  });

  it("refuses a bad value before sending it, and a missing one with the usage", async () => {
    const before = await row();
    for (const args of [
      ["set-mtu", "ng-cli-settings", "1500"],
      ["set-ports", "ng-cli-settings", "443,abc"],
      ["set-dns", "ng-cli-settings", "resolver.example"],
    ]) {
      const refused = await vpn(...args);
      expect(refused.code, args.join(" ")).toBe(1);
      expect(refused.stderr.length, args.join(" ")).toBeGreaterThan(0);
    }
    const missing = await vpn("set-mtu", "ng-cli-settings");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("set-mtu needs the new value");
    expect(await row()).toEqual(before);
  });

  it("lists, adds and removes the streaming services every node checks (decision 133)", async () => {
    const services = () => server.services.db.select().from(streamingServices);
    const added = await vpn(
      "add-service",
      "Geo TV",
      "https://tv.example.com/ng/",
      "--status",
      "200",
      "--lacks",
      "not available in your region",
      "--optional",
    );
    expect(added).toMatchObject({ code: 0 });
    expect(added.stdout).toContain("Streaming service Geo TV added");
    expect(await services()).toMatchObject([
      {
        name: "Geo TV",
        url: "https://tv.example.com/ng/",
        expectStatus: 200,
        bodyLacks: "not available in your region",
        required: false,
      },
    ]);
    expect((await vpn("list-services")).stdout).toContain(
      'Geo TV  https://tv.example.com/ng/  works when: status 200, without "not available in your region"  shown only',
    );
    // list-servers prints each server's results as the console shows them: not checked yet, ✓, ✗ and why.
    const serverLine = async () =>
      (await vpn("list-servers")).stdout.split("\n").find((line) => line.startsWith("ng-cli-settings "));
    expect(await serverLine()).toMatch(/ {2}streaming Geo TV: not checked yet$/);
    expect((await vpn("add-service", "Star TV", "https://star.example.com/")).code).toBe(0);
    const [geo, star] = await services();
    const serverId = (await row()).id;
    await recordStreamingResults(
      server.services.db,
      serverId,
      [
        { id: geo!.id, ok: true, status: 200, checkedAt: Date.UTC(2026, 10, 29, 4, 0) / 1000 },
        {
          id: star!.id,
          ok: false,
          status: 403,
          reason: "status 403",
          checkedAt: Date.UTC(2026, 10, 29, 4, 5) / 1000,
        },
      ],
      new Date(Date.UTC(2026, 10, 29, 5, 0)),
    );
    expect(await serverLine()).toMatch(
      / {2}streaming ✓ Geo TV \(2026-11-29 04:00 UTC\); ✗ Star TV: status 403 \(2026-11-29 04:05 UTC\)$/,
    );
    expect((await vpn("remove-service", "Star TV")).code).toBe(0);
    for (const args of [
      ["add-service", "Bad", "ftp://tv.example.com/"],
      ["add-service", "Bad", "https://tv.example.com/", "--status", "700"],
      ["add-service", "Geo TV", "https://other.example.com/"],
      ["remove-service", "Nothing by that name"],
    ]) {
      const refused = await vpn(...args);
      expect(refused.code, args.join(" ")).toBe(1);
      expect(refused.stderr.length, args.join(" ")).toBeGreaterThan(0);
    }
    expect((await vpn("set-mtu", "ng-cli-settings", "1400", "--optional")).code).toBe(2);
    const removed = await vpn("remove-service", "Geo TV");
    expect(removed).toMatchObject({ code: 0 });
    expect(removed.stdout).toContain("Streaming service Geo TV removed");
    expect(await services()).toEqual([]);
  });
});
