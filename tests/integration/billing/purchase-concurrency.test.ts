import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "#server/db/client.ts";
import {
  checkoutSessions,
  devices,
  outboxMessages,
  subscriptions,
  vpnServers,
} from "#server/db/schema/index.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { addTestVpnServer, treatDevelopmentServerAsReal } from "../../support/vpn.ts";

// Verifications and payments that arrive together: each buyer gets exactly one subscription,
// one slot-1 device at its own address and one config e-mail, and one bad session fails only itself.

const PLANS = ["unlock", "basic-monthly", "pro-monthly", "pro-yearly"];

/** Paid sessions as the hosted checkout leaves them (paying is not what is tested here). */
async function paidSessions(app: TestApp, count: number, label: string) {
  const rows = Array.from({ length: count }, (_, index) => ({
    id: `cs_test_${label}_${index}_${crypto.randomUUID().slice(0, 8)}`,
    provider: "test" as const,
    planId: PLANS[index % PLANS.length]!,
    customerEmail: `${label}${index}@example.com`,
    amountCents: 499,
    status: "paid" as const,
    paidAt: new Date(),
  }));
  await app.services.db.insert(checkoutSessions).values(rows);
  return rows;
}

const devicesOf = (app: TestApp, owners: { id: string }[]) =>
  app.services.db
    .select()
    .from(devices)
    .where(
      inArray(
        devices.subscriptionId,
        owners.map((owner) => owner.id),
      ),
    );

const verify = async (app: TestApp, sessionId: string) => {
  const response = await app.request("/api/verify-payment", { json: { sessionId } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe.each(databaseKinds)("concurrent fulfilment on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
    await treatDevelopmentServerAsReal(app.services.db);
  });
  afterAll(async () => {
    await app?.close();
  });

  it("fulfils 60 first verifications arriving together, each buyer once", async () => {
    const sessions = await paidSessions(app, 60, "together");
    const answers = await Promise.all(sessions.map((session) => verify(app, session.id)));
    expect(answers.every(({ status, body }) => status === 200 && body.success === true)).toBe(true);
    expect(answers.map(({ body }) => body.configSlot)).toEqual(sessions.map(() => 1));
    expect(new Set(answers.map(({ body }) => body.downloadUrl)).size).toBe(60);

    const ids = sessions.map((session) => session.id);
    const subs = await app.services.db
      .select()
      .from(subscriptions)
      .where(inArray(subscriptions.checkoutSessionId, ids));
    expect(subs).toHaveLength(60);
    for (const session of sessions) {
      const subscription = subs.find((row) => row.checkoutSessionId === session.id)!;
      expect(subscription).toMatchObject({ planId: session.planId, customerEmail: session.customerEmail });
    }
    const issued = await devicesOf(app, subs);
    expect(issued).toHaveLength(60);
    expect(new Set(issued.map((device) => device.ipv4)).size).toBe(60);
    expect(new Set(issued.map((device) => device.ipv6)).size).toBe(60);
    const mails = await app.services.db
      .select({ to: outboxMessages.toAddress, kind: outboxMessages.kind })
      .from(outboxMessages)
      .where(
        inArray(
          outboxMessages.toAddress,
          sessions.map((session) => session.customerEmail),
        ),
      );
    for (const mailKind of ["receipt", "vpn-config"]) {
      expect(
        mails
          .filter((mail) => mail.kind === mailKind)
          .map((mail) => mail.to)
          .sort(),
      ).toEqual(sessions.map((session) => session.customerEmail).sort());
    }
    expect(mails).toHaveLength(2 * sessions.length);
    const [server] = await app.services.db
      .select()
      .from(vpnServers)
      .where(eq(vpnServers.name, "ng-lagos-dev"));
    const [live] = await queryRows<{ count: number }>(
      app.services.db,
      sql`select count(*)::int as count from devices where revoked_at is null and vpn_server_id = ${server!.id}`,
    );
    expect(server!.liveDevices).toBe(live!.count);

    // The success page reloaded by everyone at once: the same config each.
    const again = await Promise.all(sessions.map((session) => verify(app, session.id)));
    expect(again.map(({ body }) => body.downloadUrl)).toEqual(answers.map(({ body }) => body.downloadUrl));
  });

  it("fails only the session that cannot be fulfilled", async () => {
    const sessions = await paidSessions(app, 10, "isolated");
    const broken = sessions[4]!;
    await app.services.db
      .update(checkoutSessions)
      .set({ planId: "retired-plan" })
      .where(eq(checkoutSessions.id, broken.id));
    const answers = await Promise.all(sessions.map((session) => verify(app, session.id)));
    answers.forEach(({ status, body }, index) => {
      if (index === 4) {
        expect(status).toBe(500);
        expect(body).toEqual({
          error: "Internal error",
          message: "Something went wrong on our side. Please try again.",
        });
      } else {
        expect(status).toBe(200);
        expect(body).toMatchObject({ success: true, configSlot: 1 });
      }
    });
    const [orphan] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.checkoutSessionId, broken.id));
    expect(orphan).toBeUndefined();
    const failure = app.log.entries().find((entry) => entry.msg === "unexpected API error");
    expect(JSON.stringify(failure)).toContain("names an unknown plan");
    const fulfilled = await app.services.db
      .select()
      .from(subscriptions)
      .where(
        inArray(
          subscriptions.checkoutSessionId,
          sessions.map((session) => session.id),
        ),
      );
    expect(fulfilled).toHaveLength(9);
  });

  it("places what a nearly full server cannot hold on another, and leaves buyers pending only when none has room", async () => {
    // The least-loaded server takes the batch; its /29 holds five devices (offsets 2..6).
    const tiny = await addTestVpnServer(app.services.db, { name: "ng-tiny-1", octet: 71, ipv4Prefix: 29 });
    const [dev] = await app.services.db.select().from(vpnServers).where(eq(vpnServers.name, "ng-lagos-dev"));
    try {
      const sessions = await paidSessions(app, 7, "overflow");
      const answers = await Promise.all(sessions.map((session) => verify(app, session.id)));
      expect(
        answers.every(({ status, body }) => status === 200 && typeof body.downloadUrl === "string"),
      ).toBe(true);
      const onTiny = await app.services.db.select().from(devices).where(eq(devices.vpnServerId, tiny.id));
      expect(onTiny.map((device) => device.ipv4).sort()).toEqual([
        "10.71.0.2",
        "10.71.0.3",
        "10.71.0.4",
        "10.71.0.5",
        "10.71.0.6",
      ]);

      // The tiny server is full and the other is switched off: paid, but nothing to issue yet.
      await app.services.db.update(vpnServers).set({ status: "draining" }).where(eq(vpnServers.id, dev!.id));
      const [late] = await paidSessions(app, 1, "nowhere");
      const pending = await verify(app, late!.id);
      expect(pending).toMatchObject({
        status: 200,
        body: {
          success: true,
          downloadUrl: null,
          configSlot: null,
          message: "Your payment is confirmed; your configuration is being prepared.",
        },
      });
      expect(app.log.text).toContain("No active VPN server has a free address to issue a config.");

      // A server with room again: the next verifications, side by side, issue slot 1 once.
      await app.services.db.update(vpnServers).set({ status: "active" }).where(eq(vpnServers.id, dev!.id));
      const later = await Promise.all(Array.from({ length: 5 }, () => verify(app, late!.id)));
      expect(later.map(({ body }) => body.configSlot)).toEqual([1, 1, 1, 1, 1]);
      expect(new Set(later.map(({ body }) => body.downloadUrl)).size).toBe(1);
      const [lateSubscription] = await app.services.db
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.checkoutSessionId, late!.id));
      expect(await devicesOf(app, [lateSubscription!])).toHaveLength(1);
    } finally {
      await app.services.db.update(vpnServers).set({ status: "active" }).where(eq(vpnServers.id, dev!.id));
      await app.services.db.update(vpnServers).set({ status: "draining" }).where(eq(vpnServers.id, tiny.id));
    }
  });

  it("fulfils payments on the built-in checkout that arrive together, each once", async () => {
    const started = await Promise.all(
      Array.from({ length: 12 }, async (_, index) => {
        const response = await app.request("/api/create-checkout", {
          json: { planId: PLANS[index % PLANS.length], customerEmail: `card${index}@example.com` },
        });
        const { url } = (await response.json()) as { url: string };
        return new URL(url).pathname.split("/").pop()!;
      }),
    );
    const paid = await Promise.all(
      started.map((sessionId) =>
        app.request(`/checkout/${sessionId}`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            cardNumber: "4242 4242 4242 4242",
            expiry: "12/34",
            cvc: "123",
          }).toString(),
        }),
      ),
    );
    expect(paid.map((response) => response.status)).toEqual(started.map(() => 302));
    const subs = await app.services.db
      .select()
      .from(subscriptions)
      .where(inArray(subscriptions.checkoutSessionId, started));
    expect(subs).toHaveLength(12);
    const issued = await devicesOf(app, subs);
    expect(issued.map((device) => device.slot)).toEqual(subs.map(() => 1));
  });
});
