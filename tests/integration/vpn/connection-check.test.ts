// "Am I connected through Nigeria?" (/check, decision 069): a visitor's address against the exit
// addresses of the VPN servers, set by the operator (set-exit) or reported by the node's agent.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setServerExitAddresses } from "#server/domain/vpn/server-edits.ts";
import { rotateNodeToken } from "#server/domain/vpn/servers.ts";
import {
  addStreamingService,
  listStreamingServices,
  recordStreamingResults,
  removeStreamingService,
} from "#server/domain/vpn/streaming-checks.ts";
import { staticPagePaths } from "#server/http/static-pages.ts";
import { createTestApp, startTestServer, type TestApp, type TestServer } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { adminCommand } from "../../support/vpn-admin.ts";
import { addTestVpnServer } from "../../support/vpn.ts";

const YES = "Yes, you are connected through Nigeria";
const NO = "No, you are not connected through Nigeria";

const visibleText = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\s+/g, " ");

describe.each(databaseKinds)("the connection check on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
  });
  afterAll(async () => {
    await app?.close();
  });

  const check = async (clientIp: string) => {
    const response = await app.request("/check", { clientIp });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    return visibleText(await response.text());
  };
  const setExit = (server: string, addresses: unknown) =>
    adminCommand(app, { command: "set-exit", server, addresses });

  it("says connected, with the server's name and location, to a visitor from the server's exit address", async () => {
    await addTestVpnServer(app.services.db, { name: "ng-lagos-exit", octet: 90 });
    const set = await setExit("ng-lagos-exit", ["203.0.113.7"]);
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({
      server: { name: "ng-lagos-exit", exitAddresses: ["203.0.113.7"] },
    });

    const text = await check("203.0.113.7");
    expect(text).toContain(YES);
    expect(text).toContain("ng-lagos-exit");
    expect(text).toContain("Lagos, Nigeria");
    expect(text).not.toContain(NO);
  });

  it("says not connected to any other visitor, with what to check and links to the tutorial and support", async () => {
    const response = await app.request("/check", { clientIp: "198.51.100.44" });
    const html = await response.text();
    const text = visibleText(html);
    expect(text).toContain(NO);
    expect(text).toContain("198.51.100.44");
    expect(text).not.toContain("ng-lagos-exit");
    for (const item of ["WireGuard app", "tunnel is switched on", "right tunnel", "DNS"])
      expect(text).toContain(item);
    expect(html).toContain('href="/tutorial"');
    expect(html).toContain('href="/contact"');
  });

  it("still says connected through a disabled server, whose devices keep working", async () => {
    await addTestVpnServer(app.services.db, { name: "ng-resting", octet: 91 });
    await setExit("ng-resting", ["203.0.113.8"]);
    await adminCommand(app, { command: "disable-server", server: "ng-resting" });
    expect(await check("203.0.113.8")).toContain("ng-resting");
  });

  it("compares IPv6 addresses however either side writes them, and IPv4-mapped ones as IPv4", async () => {
    await addTestVpnServer(app.services.db, { name: "ng-abuja-v6", octet: 92 });
    const set = await setExit("ng-abuja-v6", ["2001:DB8:0:0:0::0A", "203.0.113.9", "2001:db8::a"]);
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ server: { exitAddresses: ["2001:db8::a", "203.0.113.9"] } });

    for (const visitor of ["2001:db8::a", "2001:0db8:0000:0000:0000:0000:0000:000a", "::ffff:203.0.113.9"]) {
      const text = await check(visitor);
      expect(text, visitor).toContain(YES);
      expect(text, visitor).toContain("ng-abuja-v6");
    }
    // Another address of the same /64 is not the exit.
    expect(await check("2001:db8::b")).toContain(NO);
  });

  it("refuses exit addresses that are not IP addresses with 400, and an unknown server with 404", async () => {
    for (const addresses of [
      ["203.0.113.300"],
      ["203.0.113.7/32"],
      ["fe80::1%eth0"],
      ["vpn.example.com"],
      [""],
      Array.from({ length: 17 }, (_, index) => `203.0.113.${index + 1}`),
      "203.0.113.7",
    ]) {
      const response = await setExit("ng-lagos-exit", addresses);
      expect(response.status, JSON.stringify(addresses)).toBe(400);
      const body = (await response.json()) as { error: string; message: string };
      expect(body.error).toBe("Invalid request");
      expect(body.message.length).toBeGreaterThan(0);
    }
    expect((await setExit("no-such-server", ["203.0.113.7"])).status).toBe(404);
    // The refused commands changed nothing.
    expect(await check("203.0.113.7")).toContain(YES);
  });

  it("takes the exit addresses the node's agent reports, and keeps them when a report leaves them out", async () => {
    const server = await addTestVpnServer(app.services.db, { name: "ng-agent-exit", octet: 93 });
    const { nodeToken } = (await rotateNodeToken(app.services.db, server.name))!;
    const report = (body: Record<string, unknown>) =>
      app.request("/api/nodes/status", {
        json: { publicKey: server.publicKey, ...body },
        headers: { authorization: `Bearer ${nodeToken}` },
      });

    expect(await check("198.51.100.20")).toContain(NO);
    expect((await report({ exitAddresses: ["198.51.100.20", "2001:DB8:5::1"] })).status).toBe(200);
    expect(await check("198.51.100.20")).toContain("ng-agent-exit");
    expect(await check("2001:db8:5:0::1")).toContain("ng-agent-exit");

    expect((await report({})).status).toBe(200);
    expect(await check("198.51.100.20")).toContain("ng-agent-exit");

    const bad = await report({ exitAddresses: ["not-an-address"] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "Invalid request" });
    expect(await check("198.51.100.20")).toContain("ng-agent-exit");
  });

  it("clears a server's exit addresses with an empty list", async () => {
    await addTestVpnServer(app.services.db, { name: "ng-cleared", octet: 94 });
    await setExit("ng-cleared", ["203.0.113.50"]);
    expect(await check("203.0.113.50")).toContain(YES);
    expect((await setExit("ng-cleared", [])).status).toBe(200);
    expect(await check("203.0.113.50")).toContain(NO);
  });

  it("answers /api/check with the same result as JSON, never cached", async () => {
    const yes = await app.request("/api/check", { clientIp: "203.0.113.7" });
    expect(yes.status).toBe(200);
    expect(yes.headers.get("cache-control")).toBe("no-store");
    expect(await yes.json()).toEqual({
      connected: true,
      address: "203.0.113.7",
      server: { name: "ng-lagos-exit", region: "ng-lagos", location: "Lagos, Nigeria" },
    });
    const no = await app.request("/api/check", { clientIp: "198.51.100.44" });
    expect(await no.json()).toEqual({ connected: false, address: "198.51.100.44", server: null });
    expect((await app.request("/api/check", { method: "POST" })).status).toBe(405);
  });

  it("tells a connected buyer what their server's last streaming checks found, and nothing of other servers (decision 133)", async () => {
    const db = app.services.db;
    const mine = await addTestVpnServer(db, { name: "ng-streams", octet: 96 });
    const other = await addTestVpnServer(db, { name: "ng-other", octet: 97 });
    await setExit("ng-streams", ["203.0.113.96"]);
    await setExit("ng-other", ["203.0.113.97"]);
    const add = (name: string, url: string) =>
      db.transaction((tx) => addStreamingService(tx, { name, url, expectStatus: 200, required: true }));
    const dstv = await add("DStv", "https://dstv.example.com/secret-check-path");
    const star = await add("StarTV", "https://star.example.com/");
    await add("ShowTV", "https://show.example.com/");
    const at = Date.UTC(2026, 10, 29, 4, 5) / 1000;
    const now = new Date(Date.UTC(2026, 10, 29, 5, 0));
    await recordStreamingResults(
      db,
      mine.id,
      [
        { id: dstv.id, ok: true, status: 200, checkedAt: at },
        { id: star.id, ok: false, status: 403, reason: "status 403 from the geo fence", checkedAt: at },
      ],
      now,
    );
    // The other server's results differ: none of them may show to a buyer on ng-streams.
    await recordStreamingResults(
      db,
      other.id,
      [
        { id: dstv.id, ok: false, status: 451, reason: "status 451", checkedAt: at },
        { id: star.id, ok: true, status: 200, checkedAt: at },
      ],
      now,
    );

    const response = await app.request("/check", { clientIp: "203.0.113.96" });
    const html = await response.text();
    const text = visibleText(html);
    expect(text).toContain(YES);
    expect(text).toContain("✓ DStv worked from this server (checked Nov 29, 2026, 4:05 AM UTC");
    expect(text).toContain("✗ StarTV refused this server (checked Nov 29, 2026, 4:05 AM UTC");
    expect(text).not.toContain("✗ DStv");
    expect(text).not.toContain("✓ StarTV");
    // Not checked through this server yet: not shown. Never the URLs, the reasons or another server.
    expect(text).not.toContain("ShowTV");
    for (const hidden of ["example.com", "secret-check-path", "geo fence", "451", "ng-other"])
      expect(html).not.toContain(hidden);

    // The other server's buyer sees that server's results.
    const theirs = await check("203.0.113.97");
    expect(theirs).toContain("✗ DStv refused this server");
    expect(theirs).toContain("✓ StarTV worked from this server");

    // Not connected: no streaming results at all.
    const outside = await check("198.51.100.45");
    expect(outside).toContain(NO);
    for (const name of ["DStv", "StarTV", "Streaming services"]) expect(outside).not.toContain(name);
    for (const service of await listStreamingServices(db))
      await db.transaction((tx) => removeStreamingService(tx, service.id));
  });

  it("is linked from step 3 of the tutorial", async () => {
    const html = await (await app.request("/tutorial")).text();
    expect(html).toContain('href="/check"');
  });
});

describe("the connection check behind a trusted proxy, through the real HTTP server", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: "1" }, backgroundJobs: false });
    await addTestVpnServer(server.services.db, { name: "ng-proxied", octet: 95 });
    await setServerExitAddresses(server.services.db, "ng-proxied", ["203.0.113.70"]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** As the proxy forwards it: whatever the caller sent, then the address the proxy saw. */
  const viaProxy = (forged: string, real: string) =>
    fetch(`${server.url}/check`, { headers: { "x-forwarded-for": `${forged}, ${real}` } });

  it("answers each visitor for the address the proxy saw, never from the page cache", async () => {
    // Concurrent visitors, through the VPN or not, each get their own answer: the page cache
    // (whose concurrent misses share one render) must not serve this page.
    const visitors = Array.from({ length: 12 }, (_, index) =>
      index % 3 === 0
        ? { real: "203.0.113.70", forged: "192.0.2.1", answer: YES }
        : { real: `198.51.100.${index}`, forged: index % 3 === 1 ? "203.0.113.70" : "192.0.2.2", answer: NO },
    );
    const responses = await Promise.all(visitors.map(({ forged, real }) => viaProxy(forged, real)));
    for (const [index, response] of responses.entries()) {
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("x-page-cache")).toBeNull();
      expect(visibleText(await response.text()), visitors[index]!.real).toContain(visitors[index]!.answer);
    }
  });

  it("is a static page (no React) that the page cache never keeps", async () => {
    const checkPage = (await import("#app/routes/check.tsx")) as { handle?: unknown };
    expect(checkPage.handle).toMatchObject({ hydrate: false });
    const build = {
      routes: { check: { id: "check", parentId: "root", path: "check", module: checkPage } },
    } as unknown as Parameters<typeof staticPagePaths>[0];
    expect(staticPagePaths(build)).toEqual([]);
  });

  it("takes exit addresses from `npm run vpn -- set-exit`, and refuses a bad one with the reason", async () => {
    const vpn = (...args: string[]) =>
      promisify(execFile)(
        process.execPath,
        ["--import", "tsx", "scripts/vpn.ts", ...args, "--url", server.url],
        { env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "warn" }, timeout: 60_000 },
      );
    const { stdout } = await vpn("set-exit", "ng-proxied", "203.0.113.71, 2001:DB8::71");
    expect(stdout).toContain("VPN server ng-proxied exits from 203.0.113.71, 2001:db8::71");
    expect(visibleText(await (await viaProxy("192.0.2.1", "2001:db8::71")).text())).toContain(YES);

    const refused = await vpn("set-exit", "ng-proxied", "203.0.113.999").catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('"203.0.113.999" is not an IPv4 or IPv6 address'),
    });
  });
});
