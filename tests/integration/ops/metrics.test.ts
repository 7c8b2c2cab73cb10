// GET /metrics (decision 083): Prometheus text for the holder of METRICS_TOKEN only, the store's
// figures read from the database, requests labelled by route pattern, and no secret in it.
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutSessions } from "#server/db/schema/index.ts";
import { enqueueEmail } from "#server/domain/mail/outbox.ts";
import { recordNodeStatus } from "#server/domain/vpn/nodes.ts";
import { createTestApp, startTestServer, type TestApp, type TestServer } from "../../support/app.ts";
import { buy, signedInCustomer } from "../../support/account.ts";
import { databaseKinds } from "../../support/database.ts";
import { contactEmail } from "../../support/outbox.ts";
import { createAccount } from "../../support/staff.ts";
import { parsePrometheusText, sampleValue } from "../../support/prometheus.ts";
import {
  addTestSubscription,
  addTestVpnServer,
  issueTestDevice,
  type TestDevice,
} from "../../support/vpn.ts";

const METRICS_TOKEN = crypto.randomBytes(32).toString("hex");
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe.each(databaseKinds)("GET /metrics on %s", (kind) => {
  let app: TestApp;
  let device: TestDevice;
  let nodePublicKey: string;

  beforeAll(async () => {
    app = await createTestApp({ kind, env: { METRICS_TOKEN, STAFF_ADMINS: "ops-lead@naijalink.example" } });
    const { db } = app.services;
    const server = await addTestVpnServer(db, { name: "ng-lagos-7" });
    nodePublicKey = server.publicKey!;
    device = await issueTestDevice(app.services, await addTestSubscription(db));
    // Paid two minutes ago, past the grace of fulfilment in flight (decision 121).
    const twoMinutesAgo = new Date(Date.now() - 2 * 60_000);
    await addTestSubscription(db, { customerEmail: "waiting.buyer@example.com", createdAt: twoMinutesAgo }); // no device: pending
    // One exit address in Nigeria, one elsewhere, one in a documentation range (in no country).
    const exitAddresses = ["197.210.64.1", "8.8.8.8", "192.0.2.1"];
    await recordNodeStatus(db, server, {
      publicKey: nodePublicKey,
      appliedVersion: "1",
      exitAddresses,
      peers: [],
    });
    await db.insert(checkoutSessions).values([
      { id: `cs_test_open_${crypto.randomUUID()}`, provider: "test", planId: "unlock", amountCents: 999 },
      {
        id: `cs_test_paid_${crypto.randomUUID()}`,
        provider: "test",
        planId: "unlock",
        amountCents: 999,
        status: "paid",
        paidAt: twoMinutesAgo,
        customerEmail: "paying.buyer@example.com",
      },
    ]);
    await enqueueEmail(db, app.services.sealer, contactEmail());
  });
  afterAll(async () => {
    await app?.close();
  });

  it("answers 401 as JSON without the token or with a wrong one, and serves nothing to other methods", async () => {
    for (const init of [
      {},
      bearer("not-the-token"),
      bearer(`${METRICS_TOKEN}x`),
      { headers: { authorization: METRICS_TOKEN } },
    ]) {
      const response = await app.request("/metrics", init);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="naijalink-metrics"');
      expect(await response.json()).toEqual({
        error: "Unauthorized",
        message: "Send the metrics token as Authorization: Bearer <token>.",
      });
    }
    const post = await app.request("/metrics", { method: "POST", ...bearer(METRICS_TOKEN) });
    expect(post.status).toBe(405);
  });

  it("parses as Prometheus text and tells the store's figures, read from the database", async () => {
    const response = await app.request("/metrics", bearer(METRICS_TOKEN));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const families = parsePrometheusText(await response.text());

    expect(families.get("naijalink_http_requests_total")?.type).toBe("counter");
    expect(families.get("naijalink_http_request_duration_seconds")?.type).toBe("histogram");
    expect(families.get("process_resident_memory_bytes")?.type).toBe("gauge");
    expect(sampleValue(families, "naijalink_checkouts_last_24h", { stage: "started" })).toBe(2);
    expect(sampleValue(families, "naijalink_checkouts_last_24h", { stage: "paid" })).toBe(1);
    expect(sampleValue(families, "naijalink_checkouts_last_24h", { stage: "fulfilled" })).toBe(1);
    // The subscription with no device, and the paid session fulfilment has not recorded yet.
    expect(sampleValue(families, "naijalink_configuration_pending")).toBe(2);
    // The contact message and the device's config e-mail wait: no worker runs here.
    expect(sampleValue(families, "naijalink_outbox_pending_messages")).toBe(2);
    expect(sampleValue(families, "naijalink_outbox_oldest_pending_age_seconds")).toBeGreaterThanOrEqual(0);
    expect(sampleValue(families, "naijalink_outbox_failed_messages")).toBe(0);

    const server = { server: "ng-lagos-7" };
    expect(sampleValue(families, "naijalink_vpn_server_desired_peers", server)).toBe(1);
    expect(sampleValue(families, "naijalink_vpn_server_desired_peer_version", server)).toBeGreaterThanOrEqual(
      1,
    );
    expect(sampleValue(families, "naijalink_vpn_server_applied_peer_version", server)).toBe(1);
    expect(sampleValue(families, "naijalink_vpn_server_active", server)).toBe(1);
    const lastSeen = sampleValue(families, "naijalink_vpn_server_last_seen_timestamp_seconds", server)!;
    expect(Math.abs(lastSeen - Date.now() / 1000)).toBeLessThan(60);
    // The demo's development server never reported: no last-seen sample for it.
    const seen = families.get("naijalink_vpn_server_last_seen_timestamp_seconds")!.samples;
    expect(seen.map((sample) => sample.labels.server)).toEqual(["ng-lagos-7"]);

    // Where its exit addresses appear to be (decision 130), and the country database's date.
    for (const [appears, count] of [
      ["NG", 1],
      ["elsewhere", 1],
      ["unknown", 1],
    ] as const)
      expect(
        sampleValue(families, "naijalink_vpn_server_exit_addresses", { ...server, appears }),
        appears,
      ).toBe(count);
    const built = sampleValue(families, "naijalink_country_database_built_timestamp_seconds")!;
    expect(built).toBeGreaterThan(Date.parse("2024-01-01") / 1000);
    expect(built).toBeLessThan(Date.now() / 1000);
  });

  it("leaks no secret: no e-mail address, token or key", async () => {
    const text = await (await app.request("/metrics", bearer(METRICS_TOKEN))).text();
    expect(text).not.toContain("@");
    for (const secret of [
      METRICS_TOKEN,
      app.config.CONFIG_ENCRYPTION_KEY!,
      app.config.BETTER_AUTH_SECRET!,
      app.services.authSecret,
      nodePublicKey,
      device.device.publicKey,
      device.downloadToken,
    ])
      expect(text).not.toContain(secret);
    expect(text, "nothing shaped like a WireGuard key").not.toMatch(/[A-Za-z0-9+/]{43}=/);
  });

  it("answers 401 to a signed-in admin or customer without the token: only the token opens it", async () => {
    const admin = await createAccount(app, "ops-lead@naijalink.example");
    await buy(app, "pro-monthly", "metrics.buyer@example.com");
    const customer = await signedInCustomer(app, "metrics.buyer@example.com");
    for (const cookie of [admin.cookie, customer]) {
      const response = await app.request("/metrics", { headers: { cookie } });
      expect(response.status).toBe(401);
    }
  });
});

describe("GET /metrics without METRICS_TOKEN", () => {
  it("serves nothing without a configured token: secure by default", async () => {
    const plain = await createTestApp();
    try {
      for (const init of [{}, bearer("anything-anything-anything-anything")]) {
        const response = await plain.request("/metrics", init);
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual({
          error: "Not found",
          message: "Metrics are off: set METRICS_TOKEN to serve them.",
        });
      }
    } finally {
      await plain.close();
    }
  });
});

describe("HTTP request metrics", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ env: { METRICS_TOKEN }, backgroundJobs: false });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("counts requests by route pattern and status, never by the URL a caller sent", async () => {
    const secretLookingToken = crypto.randomBytes(16).toString("base64url");
    const answers = [
      [`/api/configs/${secretLookingToken}`, 404],
      [`/blog/no-such-post-${secretLookingToken}`, 404],
      ["/healthz", 200],
      ["/no/such/page", 404],
    ] as const;
    for (const [path, status] of answers) {
      const answer = await fetch(`${server.url}${path}`);
      expect(answer.status).toBe(status);
      await answer.arrayBuffer();
    }
    // An answer is counted when its connection has closed on the server, which can come after
    // the client has read it: wait until all four are counted.
    let text = "";
    await expect
      .poll(async () => {
        text = await (await fetch(`${server.url}/metrics`, bearer(METRICS_TOKEN))).text();
        const counted = parsePrometheusText(text).get("naijalink_http_requests_total")?.samples ?? [];
        // The scrapes before this one are counted too, under their own route.
        return counted
          .filter((sample) => sample.labels.route !== "/metrics")
          .reduce((sum, sample) => sum + sample.value, 0);
      })
      .toBe(answers.length);
    expect(text).not.toContain(secretLookingToken);
    const families = parsePrometheusText(text);
    const requests = (route: string, status: string) =>
      sampleValue(families, "naijalink_http_requests_total", { route, method: "GET", status });
    expect(requests("/api/configs/:token", "404")).toBe(1);
    expect(requests("/blog/:slug", "404")).toBe(1);
    expect(requests("/healthz", "200")).toBe(1);
    expect(requests("/*", "404")).toBe(1);
    expect(
      sampleValue(families, "naijalink_http_request_duration_seconds_count", {
        route: "/healthz",
        method: "GET",
      }),
    ).toBe(1);
    const routes = new Set(families.get("naijalink_http_requests_total")!.samples.map((s) => s.labels.route));
    routes.delete("/metrics");
    expect([...routes].sort()).toEqual(["/*", "/api/configs/:token", "/blog/:slug", "/healthz"]);
  });
});
