// Streaming checks from the exit (issue 35, decision 133), through a real node: the bundled agent,
// running in the node's namespace, fetches the two services staff listed on the stand-in internet
// host; one of them redirects the node's exit address to a block page. /admin/servers then shows
// ✓ for one and ✗ for the other, the staff alert is opened once however many reports repeat the
// failure, and a new buyer's device goes to another server that passes (a second server whose
// reports the test sends as its agent would). Topology: tests/support/tunnel/hostile-network.ts.
import { eq, like } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxMessages, staffAlerts, vpnServers } from "#server/db/schema/index.ts";
import { checkStaffAlerts } from "#server/domain/ops/alerts.ts";
import { listServerHealth } from "#server/domain/ops/server-health.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import { overHttp, type TestApp } from "../support/app.ts";
import { queuedEmailsWhere } from "../support/outbox.ts";
import { createAccount, STAFF_EMAIL } from "../support/staff.ts";
import { buyConfig, confField } from "../support/tunnel/buyer.ts";
import { tunnelUnavailableReason, waitFor } from "../support/tunnel/host.ts";
import { ADDRESS } from "../support/tunnel/hostile-network.ts";
import { HostileWorld } from "../support/tunnel/hostile-world.ts";
import { startStreamingStandIn } from "../support/tunnel/internet-host.ts";

const reason = tunnelUnavailableReason();
const mustRun = process.env.CI === "true";
if (reason && !mustRun) console.warn(`[tunnel] skipped: ${reason}`);

const REPORT_MS = 30_000;
const SECOND_ENDPOINT = "203.0.113.50:51820";

describe.skipIf(reason !== null && !mustRun)("streaming checks from a node's exit", () => {
  const world = new HostileWorld("v", {
    hopMtu: 1500,
    env: { STAFF_ADMINS: STAFF_EMAIL },
    agentArgs: ["--streaming-check-ms", "1500"],
  });
  let standIn: Awaited<ReturnType<typeof startStreamingStandIn>> | undefined;
  let app: TestApp;
  let admin = "";
  const services: Record<"open" | "geo", string> = { open: "", geo: "" };
  let nodeServerId = "";

  beforeAll(async () => {
    if (reason) throw new Error(`The tunnel test must run under CI=true but cannot: ${reason}`);
    await world.start();
    standIn = await startStreamingStandIn(world.network.ns.inet, ADDRESS.nodeEgress);
    // The app listens on the control link only.
    app = overHttp({ ...world.app, url: world.apiUrl });
    admin = (await createAccount(app, STAFF_EMAIL)).cookie;
    const [row] = await world.app.services.db
      .select({ id: vpnServers.id })
      .from(vpnServers)
      .where(eq(vpnServers.name, world.node.serverName));
    nodeServerId = row!.id;
  }, 240_000);

  afterAll(async () => {
    standIn?.stop();
    await world.stop();
  }, 60_000);

  const nodeResults = async () =>
    (await listServerHealth(world.app.services.db)).find((server) => server.name === world.node.serverName)!
      .streaming;
  const streamingAlerts = () =>
    world.app.services.db.select().from(staffAlerts).where(like(staffAlerts.key, "streaming-refused:%"));

  it("staff list two services; the node's agent checks both from its exit: one ✓, one ✗", async () => {
    for (const [key, name, path] of [
      ["open", "Open TV", "/open"],
      ["geo", "Geo TV", "/geo"],
    ] as const) {
      const response = await app.request("/api/admin/streaming-services/add", {
        json: {
          name,
          url: `http://${ADDRESS.internet}:8081${path}`,
          bodyContains: "watch now",
          reason: "buyers come for it",
        },
        headers: { cookie: admin },
      });
      expect(response.status).toBe(200);
      services[key] = ((await response.json()) as { service: { id: string } }).service.id;
    }
    const results = await waitFor(
      "the node's agent to report both checks",
      async () => {
        const streaming = await nodeResults();
        return streaming.every((result) => result.ok !== null) ? streaming : undefined;
      },
      REPORT_MS,
      200,
    );
    expect(results.map((result) => [result.name, result.ok])).toEqual([
      ["Open TV", true],
      ["Geo TV", false],
    ]);
    expect(results[1]!.reason).toBe("answered 302 (a redirect to /unavailable-in-your-region), not 200");
    // The checks left by the node's exit address.
    expect(new Set(standIn!.callers().map((caller) => caller.split(" ")[0]))).toEqual(
      new Set([ADDRESS.nodeEgress]),
    );
    const html = await (await app.request("/admin/servers", { headers: { cookie: admin } })).text();
    const marks = [...html.matchAll(/data-service="([^"]+)" data-ok="(true|false)"[^>]*>\s*<[^>]+>([✓✗])/g)];
    expect(marks.map((mark) => `${mark[1]} ${mark[3]}`)).toEqual(["Open TV ✓", "Geo TV ✗"]);
  });

  it("opens the alert once, across two reports of the same failure", async () => {
    await checkStaffAlerts(world.app.services);
    const firstCheck = (await nodeResults())[1]!.checkedAt!;
    // The agent checks again (every 1.5 s) and reports the same refusal.
    await waitFor(
      "a later report of the refused service",
      async () => ((await nodeResults())[1]!.checkedAt! > firstCheck ? true : undefined),
      REPORT_MS,
      200,
    );
    await checkStaffAlerts(world.app.services);
    const alerts = await streamingAlerts();
    expect(alerts.map((alert) => [alert.key, alert.resolvedAt])).toEqual([
      [`streaming-refused:${nodeServerId}:${services.geo}`, null],
    ]);
    const emails = (
      await queuedEmailsWhere(world.app.services, eq(outboxMessages.kind, "staff-alert"))
    ).filter((email) => email.subject.includes("Geo TV"));
    expect(emails.map((email) => email.to)).toEqual([STAFF_EMAIL]);
  });

  it("puts a new buyer's device on another server that passes every check", async () => {
    const added = await world.node.admin<{ nodeToken: string }>({
      command: "add-server",
      name: `passing-${process.pid % 100_000}`,
      endpoint: SECOND_ENDPOINT,
      ipv4: "10.98.0.0/24",
      ipv6: "fd98::/64",
    });
    // The second server's agent, as the test: registers its key and reports both services pass.
    const publicKey = generateKeyPair().publicKey;
    const report = async (geoOk: boolean) => {
      const now = Math.floor(Date.now() / 1000);
      const reported = await fetch(`${world.apiUrl}/api/nodes/status`, {
        method: "POST",
        headers: { authorization: `Bearer ${added.nodeToken}`, "content-type": "application/json" },
        body: JSON.stringify({
          publicKey,
          peers: [],
          streamingChecks: [
            { id: services.open, ok: true, status: 200, checkedAt: now },
            geoOk
              ? { id: services.geo, ok: true, status: 200, checkedAt: now }
              : { id: services.geo, ok: false, status: 302, reason: "answered 302", checkedAt: now },
          ],
        }),
      });
      expect(reported.status).toBe(200);
    };
    await report(true);
    // The node is the older and no fuller (no device yet): without the check it would take the device.
    const bought = await buyConfig(world.apiUrl, "streaming-buyer@example.com");
    expect(confField(bought.text, "Endpoint")).toBe(SECOND_ENDPOINT);

    // Both refused: placed as before (the least loaded, now the node), never a refused sale.
    await report(false);
    const next = await buyConfig(world.apiUrl, "streaming-next@example.com");
    expect(confField(next.text, "Endpoint")).toBe(`${ADDRESS.nodePublic}:51820`);
  });
});
