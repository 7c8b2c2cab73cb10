// GET /api/nodes/peers as a node agent uses it: the full set once, then the changes since its
// version, a held poll answered as soon as a purchase issues a device or a device is revoked.
import fs from "node:fs/promises";
import path from "node:path";
import { eq, ne } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { peerAnswerSchema, type PeerAnswer } from "#agent/node-api.ts";
import { checkoutSessions, devices, subscriptions, vpnServers } from "#server/db/schema/index.ts";
import { ADMIN_TOKEN_FILE } from "#server/domain/vpn/admin-token.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import { prunePeerChanges } from "#server/domain/vpn/peer-changes.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";

describe.each(databaseKinds)("the node peers API on %s", (kind) => {
  let app: TestApp;
  let auth: { authorization: string };
  let purchases = 0;

  beforeAll(async () => {
    app = await createTestApp({ kind });
    const { token } = JSON.parse(await fs.readFile(path.join(app.dataDir, ADMIN_TOKEN_FILE), "utf8")) as {
      token: string;
    };
    const added = await app.request("/api/nodes/servers", {
      json: {
        command: "add-server",
        name: "ng-peers-1",
        endpoint: "203.0.113.30:51820",
        ipv4: "10.72.0.0/24",
        ipv6: "fd72::/64",
        publicKey: generateKeyPair().publicKey,
      },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(added.status).toBe(200);
    auth = { authorization: `Bearer ${((await added.json()) as { nodeToken: string }).nodeToken}` };
    // Every purchase lands on this server.
    await app.services.db
      .update(vpnServers)
      .set({ status: "draining" })
      .where(ne(vpnServers.name, "ng-peers-1"));
  });
  afterAll(async () => {
    await app?.close();
  });

  const peers = async (query = "", headers: Record<string, string> = auth) => {
    const response = await app.request(`/api/nodes/peers${query}`, { headers });
    return { response, answer: response.status === 200 ? parse(await response.json()) : undefined };
  };
  const parse = (body: unknown): PeerAnswer => peerAnswerSchema.parse(body);

  /** Buys a plan through the built-in checkout (which issues the first device); returns its key. */
  async function buy(): Promise<string> {
    purchases += 1;
    const checkout = await app.request("/api/create-checkout", {
      json: { planId: "basic-monthly", customerEmail: `node${purchases}@example.com` },
    });
    const sessionId = new URL(((await checkout.json()) as { url: string }).url).pathname.split("/").pop()!;
    const paid = await app.request(`/checkout/${sessionId}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ cardNumber: "4242424242424242", expiry: "12/34", cvc: "123" }).toString(),
    });
    expect(paid.status).toBe(302);
    const [row] = await app.services.db
      .select({ publicKey: devices.publicKey })
      .from(devices)
      .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
      .innerJoin(checkoutSessions, eq(checkoutSessions.id, subscriptions.checkoutSessionId))
      .where(eq(checkoutSessions.id, sessionId));
    return row!.publicKey;
  }

  /** A held poll, and whether it has answered yet. */
  function hold(since: string) {
    const state = { answered: false };
    const answer = peers(`?since=${since}&wait=25`).finally(() => (state.answered = true));
    return { state, answer };
  }

  it("refuses a missing or wrong node token with 401, without holding the request", async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: "Bearer not-the-node-token-at-all" },
    ];
    for (const headers of attempts) {
      const { response } = await peers("?since=1&wait=25", headers);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: "Unauthorized" });
    }
  });

  it("answers a held poll as soon as a purchase issues a device, with that device only", async () => {
    const { answer: full } = await peers();
    expect(full).toMatchObject({ kind: "full", peers: [] });
    const started = Date.now();
    const poll = hold(full!.version);
    // The poll is held across other requests until the purchase commits its device.
    await app.request("/api/nodes/peers", { headers: auth });
    expect(poll.state.answered).toBe(false);
    const publicKey = await buy();
    const { response, answer } = await poll.answer;
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(answer).toMatchObject({ kind: "changes", since: full!.version, removals: [] });
    expect(answer!.kind === "changes" && answer!.upserts.map((peer) => peer.publicKey)).toEqual([publicKey]);
    expect(response.headers.get("etag")).toBe(`"${answer!.version}"`);
  });

  it("answers the changes since a version with only what changed since", async () => {
    const { answer: before } = await peers();
    const second = await buy();
    const answer = (await peers(`?since=${before!.version}`)).answer!;
    expect(answer.kind).toBe("changes");
    if (answer.kind !== "changes") return;
    expect(answer.upserts).toHaveLength(1);
    expect(answer.upserts[0]).toMatchObject({
      publicKey: second,
      allowedIps: [
        expect.stringMatching(/^10\.72\.0\.\d+\/32$/),
        expect.stringMatching(/^fd72::[0-9a-f]+\/128$/),
      ],
    });
    expect(answer.server).toMatchObject({
      ipv4Pool: "10.72.0.0/24",
      ipv6Pool: "fd72::/64",
      listenPort: 51820,
    });
    // Nothing since the new version: 304 at once without `wait`, and for If-None-Match of the full set.
    expect((await peers(`?since=${answer.version}`)).response.status).toBe(304);
    const unchanged = await peers("", { ...auth, "if-none-match": `"${answer.version}"` });
    expect(unchanged.response.status).toBe(304);
  });

  it("answers a held poll as soon as a device is revoked, with its removal", async () => {
    const { answer: full } = await peers();
    expect(full!.kind === "full" && full!.peers.length).toBeGreaterThanOrEqual(2);
    const victim = full!.kind === "full" ? full!.peers[0]!.publicKey : "";
    const poll = hold(full!.version);
    await app.request("/api/nodes/peers", { headers: auth });
    expect(poll.state.answered).toBe(false);
    await app.services.db.update(devices).set({ revokedAt: new Date() }).where(eq(devices.publicKey, victim));
    const { answer } = await poll.answer;
    expect(answer).toMatchObject({ kind: "changes", upserts: [], removals: [victim] });
  });

  it("answers an unknown or too old version with the full set", async () => {
    const { answer: full } = await peers();
    const current = Number(full!.version);
    for (const since of [String(current + 100), "not-a-version"]) {
      const { answer } = await peers(`?since=${since}&wait=25`);
      expect(answer).toMatchObject({ kind: "full", version: full!.version });
      expect(answer!.kind === "full" && answer!.peers).toEqual(full!.kind === "full" && full!.peers);
    }
    await prunePeerChanges(app.services.db, new Date(Date.now() + 60_000));
    const { answer: old } = await peers(`?since=${current - 1}`);
    expect(old).toMatchObject({ kind: "full", version: full!.version });
  });

  it("answers a malformed query with 400 JSON", async () => {
    for (const query of ["?since=1&wait=26", "?since=1&wait=soon", `?since=${"9".repeat(65)}`]) {
      const { response } = await peers(query);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: "Invalid request" });
    }
  });
});
