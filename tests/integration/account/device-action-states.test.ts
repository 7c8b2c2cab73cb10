// Issue 24, states that lie or dead-end (decision 110): a page offers "Add a device" only when
// adding can succeed, and a buyer at Configuration Pending gets the config from the same call,
// with the same authorisation, once a server has room (decision 111).
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDeviceRefusal } from "#core/device-actions.ts";
import { outboxMessages, subscriptions, vpnServers } from "#server/db/schema/index.ts";
import type { AccountSubscription } from "#server/domain/account/account.ts";
import type { VerifiedPayment } from "#server/domain/billing/verify.ts";
import { awaitingConfiguration, serveWaitingBuyers } from "#server/domain/billing/waiting-buyers.ts";
import { accountRequest, buy, signedInCustomer } from "../../support/account.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { payWith, startCheckout, verify } from "../../support/purchase.ts";

describe.each(databaseKinds)("which device actions are offered in which state, on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
  });
  afterAll(async () => {
    await app?.close();
  });

  /** Every active server stops taking devices (none has room); answers how to undo it. */
  async function noServerHasRoom() {
    const active = await app.services.db
      .update(vpnServers)
      .set({ status: "draining" })
      .where(eq(vpnServers.status, "active"))
      .returning({ id: vpnServers.id });
    return async () => {
      for (const { id } of active)
        await app.services.db.update(vpnServers).set({ status: "active" }).where(eq(vpnServers.id, id));
    };
  }

  async function verified(sessionId: string, body: Record<string, unknown> = {}, cookie?: string) {
    const response = await verify(app, { sessionId, ...body }, cookie);
    return { status: response.status, body: (await response.json()) as VerifiedPayment & { error?: string } };
  }

  /** The success page's rule applied to a verification answer. */
  const successPageRefusal = (answer: VerifiedPayment) =>
    addDeviceRefusal({
      usable: true,
      deviceLimit: answer.subscription.deviceLimit,
      liveDevices: answer.subscription.activeDevices,
      mayClaimSlot: answer.mayClaimSlot,
      roomForDevice: answer.roomForDevice,
    });

  async function accountList(cookie: string): Promise<AccountSubscription[]> {
    const response = await accountRequest(app, "subscriptions", {}, cookie);
    expect(response.status).toBe(200);
    return ((await response.json()) as { subscriptions: AccountSubscription[] }).subscriptions;
  }

  it("success page: offered to the browser that paid while a slot is free, and never at 3 of 3", async () => {
    const { sessionId, buyerCookie } = await startCheckout(app, "pro-monthly", "states-pro@example.com");
    expect((await payWith(app, sessionId, "4242 4242 4242 4242")).status).toBe(302);

    const first = await verified(sessionId, {}, buyerCookie);
    expect(first.body).toMatchObject({ mayClaimSlot: true, roomForDevice: true });
    expect(successPageRefusal(first.body)).toBeNull();
    for (const slot of [2, 3]) {
      const added = await verified(sessionId, { newDevice: true }, buyerCookie);
      expect(added.body).toMatchObject({ success: true, configSlot: slot });
    }
    const full = await verified(sessionId, {}, buyerCookie);
    expect(full.body.subscription.activeDevices).toBe(3);
    expect(successPageRefusal(full.body)).toBe("limit");
    // Not offered, because it would fail.
    const refused = await verified(sessionId, { newDevice: true }, buyerCookie);
    expect(refused).toMatchObject({ status: 409, body: { error: "Device limit reached" } });
  });

  it("success page: not offered to a browser that cannot add (not the one that paid), whose add would be refused", async () => {
    const sessionId = await buy(app, "pro-monthly", "states-link@example.com");
    const elsewhere = await verified(sessionId);
    expect(elsewhere.body).toMatchObject({ success: true, mayClaimSlot: false, roomForDevice: false });
    expect(successPageRefusal(elsewhere.body)).toBe("other-browser");
    const refused = await verified(sessionId, { newDevice: true });
    expect(refused).toMatchObject({ status: 403, body: { error: "Paying browser required" } });
    expect((refused.body as unknown as { message: string }).message).toContain("/account");
  });

  it("success page and /account: not offered while no VPN server has room, where adding fails", async () => {
    const { sessionId, buyerCookie } = await startCheckout(app, "pro-monthly", "states-room@example.com");
    expect((await payWith(app, sessionId, "4242 4242 4242 4242")).status).toBe(302);
    const cookie = await signedInCustomer(app, "states-room@example.com");
    const restore = await noServerHasRoom();
    try {
      const answer = await verified(sessionId, {}, buyerCookie);
      expect(answer.body).toMatchObject({ mayClaimSlot: true, roomForDevice: false });
      expect(successPageRefusal(answer.body)).toBe("no-room");
      expect((await verified(sessionId, { newDevice: true }, buyerCookie)).status).toBe(503);
      const [listed] = await accountList(cookie);
      expect(listed!.addDevice).toBe("no-room");
      expect((await accountRequest(app, "devices/add", { subscriptionId: listed!.id }, cookie)).status).toBe(
        503,
      );
    } finally {
      await restore();
    }
    const [again] = await accountList(cookie);
    expect(again!.addDevice).toBeNull();
  });

  it("/account: offered below the limit, not at 3 of 3, nor on an ended plan", async () => {
    await buy(app, "pro-monthly", "states-account@example.com");
    const cookie = await signedInCustomer(app, "states-account@example.com");
    const [subscription] = await accountList(cookie);
    expect(subscription!.addDevice).toBeNull();
    for (let added = 0; added < 2; added++)
      expect(
        (await accountRequest(app, "devices/add", { subscriptionId: subscription!.id }, cookie)).status,
      ).toBe(200);
    const [full] = await accountList(cookie);
    expect(full!.devices).toHaveLength(3);
    expect(full!.addDevice).toBe("limit");

    await app.services.db
      .update(subscriptions)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(subscriptions.id, subscription!.id));
    const [ended] = await accountList(cookie);
    expect(ended!.addDevice).toBe("ended");
  });

  it("Configuration Pending: the page's repeated call answers the config once a server has room, slot 1 only to a browser that did not pay", async () => {
    const { sessionId, buyerCookie } = await startCheckout(app, "pro-monthly", "states-pending@example.com");
    const restore = await noServerHasRoom();
    try {
      expect((await payWith(app, sessionId, "4242 4242 4242 4242")).status).toBe(302);
      for (const cookie of [buyerCookie, undefined]) {
        const pending = await verified(sessionId, {}, cookie);
        expect(pending.body).toMatchObject({
          success: true,
          downloadUrl: null,
          configSlot: null,
          devices: [],
        });
        expect(pending.body.subscription.activeDevices).toBe(0);
      }
    } finally {
      await restore();
    }
    const stranger = await verified(sessionId);
    expect(stranger.body).toMatchObject({ success: true, configSlot: 1, mayClaimSlot: false });
    expect(stranger.body.devices.map((device) => device.slot)).toEqual([1]);
    const buyer = await verified(sessionId, {}, buyerCookie);
    expect(buyer.body).toMatchObject({ configSlot: 1, mayClaimSlot: true, roomForDevice: true });
    expect(successPageRefusal(buyer.body)).toBeNull();
  });

  it("Configuration Pending: a waiting buyer whose page was closed gets the config and its e-mail once a server has room", async () => {
    const restore = await noServerHasRoom();
    const sessions: string[] = [];
    try {
      for (const name of ["waiting-a", "waiting-b"]) {
        const { sessionId } = await startCheckoutWhileRoom(`${name}@example.com`);
        expect((await payWith(app, sessionId, "4242 4242 4242 4242")).status).toBe(302);
        sessions.push(sessionId);
      }
      expect(await serveWaitingBuyers(app.services, pastGrace())).toEqual({ configsIssued: 0 });
      expect(await waitingSessions()).toEqual(expect.arrayContaining(sessions));
    } finally {
      await restore();
    }
    expect(await serveWaitingBuyers(app.services, pastGrace())).toEqual({ configsIssued: 2 });
    const stillWaiting = await waitingSessions();
    for (const sessionId of sessions) expect(stillWaiting).not.toContain(sessionId);
    for (const [index, sessionId] of sessions.entries()) {
      const answer = await verified(sessionId);
      expect(answer.body).toMatchObject({ success: true, configSlot: 1 });
      expect(await configEmailsTo(`waiting-${"ab"[index]}@example.com`)).toBe(1);
    }
    // Served once: a second run has no one to serve and sends nothing more.
    expect(await serveWaitingBuyers(app.services, pastGrace())).toEqual({ configsIssued: 0 });
    expect(await configEmailsTo("waiting-a@example.com")).toBe(1);
  });

  /** A minute after payment, the grace of fulfilment in flight (decision 121), has passed. */
  function pastGrace() {
    return new Date(Date.now() + 2 * 60_000);
  }

  /** Checkout starts only while a server has room: open it, then take the room away again. */
  async function startCheckoutWhileRoom(email: string) {
    const drained = await app.services.db
      .select({ id: vpnServers.id })
      .from(vpnServers)
      .where(eq(vpnServers.status, "draining"));
    for (const { id } of drained)
      await app.services.db.update(vpnServers).set({ status: "active" }).where(eq(vpnServers.id, id));
    const checkout = await startCheckout(app, "pro-monthly", email);
    for (const { id } of drained)
      await app.services.db.update(vpnServers).set({ status: "draining" }).where(eq(vpnServers.id, id));
    return checkout;
  }

  async function waitingSessions() {
    return (await awaitingConfiguration(app.services.db, pastGrace())).map(
      (buyer) => buyer.checkoutSessionId,
    );
  }

  async function configEmailsTo(email: string) {
    const [row] = await app.services.db
      .select({ value: count() })
      .from(outboxMessages)
      .where(and(eq(outboxMessages.kind, "vpn-config"), eq(outboxMessages.toAddress, email)));
    return row!.value;
  }
});
