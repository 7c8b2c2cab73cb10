// Each customer e-mail is queued in the outbox by the event that causes it, exactly once:
// replays, retries, reloads and later job runs queue nothing more.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addAccountDevice,
  replaceAccountDeviceKeys,
  revokeAccountDevice,
} from "#server/domain/account/account.ts";
import { devices, subscriptions } from "#server/db/schema/index.ts";
import { queueDueReminders } from "#server/domain/billing/reminders.ts";
import { cancelAtPeriodEnd, orderNumberOf, resumeSubscription } from "#server/domain/billing/self-service.ts";
import { qrCodePng } from "#server/qr-code.ts";
import { expireDue } from "#server/domain/vpn/lifecycle.ts";
import type { TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { startCheckout, verify } from "../../support/purchase.ts";
import {
  deliverStripeEvent,
  createStripeTestApp,
  type StripeStandIn,
} from "../../support/stripe-stand-in.ts";
import { addTestSubscription } from "../../support/vpn.ts";
import { queuedEmails } from "../../support/staff.ts";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

describe.each(databaseKinds)("customer e-mails on %s", (kind) => {
  let app: TestApp;
  let standIn: StripeStandIn;
  let buyers = 0;

  beforeAll(async () => {
    ({ app, standIn } = await createStripeTestApp({ kind }));
  });
  afterAll(async () => {
    await app?.close();
    await standIn?.close();
  });

  const deliver = (type: string, object: object, id?: string) => deliverStripeEvent(app, type, object, id);

  /** A purchase paid on Stripe and confirmed by its webhook, by a buyer of its own. */
  async function buy(planId: string) {
    const email = `buyer-${++buyers}-${kind}@example.com`;
    const { sessionId, buyerCookie } = await startCheckout(app, planId, email);
    const paid = standIn.markPaid(sessionId);
    const completed = await deliver("checkout.session.completed", paid);
    const [subscription] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.checkoutSessionId, sessionId));
    return { email, sessionId, buyerCookie, paid, completed, subscription: subscription! };
  }

  async function emailsOf(to: string, emailKind: string) {
    return (await queuedEmails(app, to)).filter((email) => email.kind === emailKind);
  }

  it("a payment queues one receipt with the amount, plan and order number, however often it is confirmed", async () => {
    const { email, sessionId, paid, completed, subscription } = await buy("pro-yearly");
    await deliver("checkout.session.completed", paid, completed.id);
    await deliver("checkout.session.completed", paid);
    expect((await verify(app, { sessionId })).status).toBe(200);

    const receipts = await emailsOf(email, "receipt");
    expect(receipts).toHaveLength(1);
    expect(receipts[0]!.subject).toBe(
      `Your NaijaLink receipt: Pro Yearly, order ${orderNumberOf(subscription.id)}`,
    );
    expect(receipts[0]!.text).toContain("Amount paid: $79.99");
    expect(receipts[0]!.text).toContain("http://localhost:3000/account");
    expect(receipts[0]!.html).toContain('href="http://localhost:3000/account"');
    expect(await emailsOf(email, "vpn-config")).toHaveLength(1);
  });

  it("the config e-mail has an HTML and a text part, the .conf attached and the QR code inline", async () => {
    const { email } = await buy("unlock");
    const [config] = await emailsOf(email, "vpn-config");
    expect(config!.text).toMatch(/Download your config: http:\/\/localhost:3000\/api\/configs\/\S+/);
    expect(config!.text).toContain("http://localhost:3000/account");
    expect(config!.html).toContain('src="cid:config-qr"');
    const [conf, qr] = config!.attachments!;
    expect(conf).toMatchObject({ filename: "NaijaLink1.conf" });
    expect(conf!.content).toContain("[Interface]");
    // The QR code of the same text as the .conf, as a PNG: mail clients do not show SVG.
    expect(qr).toEqual({
      filename: "config-qr.png",
      content: await qrCodePng(conf!.content as string),
      contentType: "image/png",
      contentId: "config-qr",
    });
    expect((qr!.content as Buffer).subarray(1, 4).toString()).toBe("PNG");
  });

  it("adding a device from the paying browser queues its config as the device-added notice, once", async () => {
    const { email, sessionId, buyerCookie } = await buy("pro-monthly");
    expect((await verify(app, { sessionId, newDevice: true }, buyerCookie)).status).toBe(200);
    expect((await verify(app, { sessionId })).status).toBe(200);

    const configs = await emailsOf(email, "vpn-config");
    expect(configs.map((config) => config.subject)).toEqual([
      "Your NaijaLink VPN config (NaijaLink1.conf)",
      "Device 2 added: your NaijaLink VPN config (NaijaLink2.conf)",
    ]);
    expect(configs[1]!.text).toContain("Was this you? If you did not add Device 2");
  });

  it("revoking a device and new keys on the account page each queue one 'was this you?' e-mail", async () => {
    const { email, subscription } = await buy("pro-monthly");
    const customer = { id: `customer-${email}`, email };
    const second = await addAccountDevice(app.services, customer, subscription.id);
    const [first] = await app.services.db
      .select()
      .from(devices)
      .where(and(eq(devices.subscriptionId, subscription.id), eq(devices.slot, 1)));

    await replaceAccountDeviceKeys(app.services, customer, second.deviceId);
    const rekeyed = await emailsOf(email, "device-rekeyed");
    expect(rekeyed.map((notice) => notice.subject)).toEqual(["New keys for Device 2 on your NaijaLink plan"]);
    expect(rekeyed[0]!.text).toContain("Was this you?");

    await revokeAccountDevice(app.services, customer, first!.id);
    await expect(revokeAccountDevice(app.services, customer, first!.id)).rejects.toThrow();
    const revoked = await emailsOf(email, "device-revoked");
    expect(revoked.map((notice) => notice.subject)).toEqual([
      "Device 1 was removed from your NaijaLink plan",
    ]);
    expect(revoked[0]!.text).toContain("http://localhost:3000/account");
  });

  it("a failed renewal queues one payment-failed e-mail, however often Stripe retries the charge", async () => {
    const { email, paid } = await buy("pro-monthly");
    const invoice = {
      id: `in_${paid.id.slice(-8)}`,
      object: "invoice",
      parent: { subscription_details: { subscription: paid.subscription } },
      lines: { data: [] },
    };
    await deliver("invoice.payment_failed", invoice);
    await deliver("invoice.payment_failed", invoice);

    const failed = await emailsOf(email, "payment-failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]!.text).toContain("We could not charge $7.99/month for your Pro Monthly");
  });

  it("cancelling at period end queues one cancelled e-mail, and the end of the period one expired e-mail", async () => {
    const { email, paid, subscription } = await buy("pro-yearly");
    const periodEnd = Math.floor(subscription.expiresAt.getTime() / 1000);
    const cancelAtEnd = {
      id: paid.subscription,
      object: "subscription",
      status: "active",
      cancel_at_period_end: true,
      cancel_at: periodEnd,
      items: { data: [{ current_period_end: periodEnd }] },
    };
    await deliver("customer.subscription.updated", cancelAtEnd);
    await deliver("customer.subscription.updated", cancelAtEnd);
    const cancelled = await emailsOf(email, "subscription-cancelled");
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]!.text).toContain("Your configs keep working until");

    const afterEnd = new Date(subscription.expiresAt.getTime() + 1000);
    await expireDue(app.services, afterEnd);
    await expireDue(app.services, afterEnd);
    await deliver("customer.subscription.deleted", { ...cancelAtEnd, status: "canceled" });
    expect(await emailsOf(email, "subscription-expired")).toHaveLength(1);
    expect(await emailsOf(email, "subscription-cancelled")).toHaveLength(1);
  });

  it("the customer's own cancel queues one cancelled e-mail; Stripe's webhook of the same change none more", async () => {
    const { email, paid, subscription } = await buy("pro-monthly");
    await cancelAtPeriodEnd(app.services, subscription.id);
    const remote = standIn.subscriptions.get(paid.subscription!)!;
    await deliver("customer.subscription.updated", { ...remote, object: "subscription" });
    await cancelAtPeriodEnd(app.services, subscription.id);

    const cancelled = await emailsOf(email, "subscription-cancelled");
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]!.subject).toBe("Your NaijaLink Pro Monthly is cancelled");
    expect(cancelled[0]!.text).toContain("Resume it on your account page");
  });

  it("resuming queues one renewal-resumed e-mail, whether resumed here or in Stripe's portal", async () => {
    const here = await buy("pro-monthly");
    await cancelAtPeriodEnd(app.services, here.subscription.id);
    await resumeSubscription(app.services, here.subscription.id);
    const remote = standIn.subscriptions.get(here.paid.subscription!)!;
    await deliver("customer.subscription.updated", { ...remote, object: "subscription" });
    await resumeSubscription(app.services, here.subscription.id);
    const resumed = await emailsOf(here.email, "subscription-resumed");
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.subject).toBe("Your NaijaLink Pro Monthly renews again");

    const portal = await buy("pro-yearly");
    const periodEnd = Math.floor(portal.subscription.expiresAt.getTime() / 1000);
    const state = (cancelling: boolean) => ({
      id: portal.paid.subscription,
      object: "subscription",
      status: "active",
      cancel_at_period_end: cancelling,
      cancel_at: cancelling ? periodEnd : null,
      items: { data: [{ current_period_end: periodEnd }] },
    });
    await deliver("customer.subscription.updated", state(true));
    await deliver("customer.subscription.updated", state(false));
    await deliver("customer.subscription.updated", state(false));
    expect(await emailsOf(portal.email, "subscription-resumed")).toHaveLength(1);
  });

  it("a subscription Stripe ends at once queues one cancelled e-mail that says it stopped", async () => {
    const { email, paid } = await buy("pro-monthly");
    const deleted = {
      id: paid.subscription,
      object: "subscription",
      status: "canceled",
      cancel_at_period_end: false,
      cancel_at: null,
      items: { data: [] },
    };
    await deliver("customer.subscription.deleted", deleted);
    await deliver("customer.subscription.deleted", deleted);

    const cancelled = await emailsOf(email, "subscription-cancelled");
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]!.text).toContain("Your configs stopped working on");
    expect(await emailsOf(email, "subscription-expired")).toHaveLength(0);
  });

  it("the end of a period queues one expired e-mail, however often the expiry job runs", async () => {
    const customerEmail = `expiring-${kind}@example.com`;
    const subscription = await addTestSubscription(app.services.db, {
      planId: "basic-monthly",
      planType: "basic",
      deviceLimit: 1,
      customerEmail,
    });
    await expireDue(app.services, new Date(subscription.expiresAt.getTime() - HOUR_MS));
    expect(await emailsOf(customerEmail, "subscription-expired")).toHaveLength(0);
    await expireDue(app.services, subscription.expiresAt);
    await expireDue(app.services, new Date(subscription.expiresAt.getTime() + DAY_MS));

    const expired = await emailsOf(customerEmail, "subscription-expired");
    expect(expired).toHaveLength(1);
    expect(expired[0]!.subject).toBe("Your NaijaLink Basic Monthly has ended");
  });

  /** Runs the reminder job at each of these moments and answers the reminders queued for `to` by then. */
  async function remindersAt(to: string, emailKind: string, ...moments: Date[]) {
    for (const now of moments) await queueDueReminders(app.services, now);
    return emailsOf(to, emailKind);
  }

  it("reminds a yearly subscription 3 days before it renews: not before, once inside the window, again next year", async () => {
    const customerEmail = `yearly-${kind}@example.com`;
    const renewsAt = new Date(Date.now() + 200 * DAY_MS);
    const subscription = await addTestSubscription(app.services.db, {
      planId: "pro-yearly",
      planType: "pro_yearly",
      customerEmail,
      expiresAt: renewsAt,
    });
    const before = (ms: number) => new Date(renewsAt.getTime() - ms);
    expect(await remindersAt(customerEmail, "renewal-reminder", before(3 * DAY_MS + HOUR_MS))).toHaveLength(
      0,
    );
    const reminded = await remindersAt(customerEmail, "renewal-reminder", before(3 * DAY_MS - HOUR_MS));
    expect(reminded).toHaveLength(1);
    expect(reminded[0]!.text).toContain("we will charge $79.99/year");
    expect(
      await remindersAt(customerEmail, "renewal-reminder", before(2 * DAY_MS), before(HOUR_MS)),
    ).toHaveLength(1);

    const nextYear = new Date(renewsAt.getTime() + 365 * DAY_MS);
    await app.services.db
      .update(subscriptions)
      .set({ expiresAt: nextYear })
      .where(eq(subscriptions.id, subscription.id));
    expect(
      await remindersAt(customerEmail, "renewal-reminder", new Date(nextYear.getTime() - 2 * DAY_MS)),
    ).toHaveLength(2);
  });

  it("tells a pass holder 1 day before the pass ends: not before, once inside the window", async () => {
    const customerEmail = `pass-${kind}@example.com`;
    const endsAt = new Date(Date.now() + 6 * DAY_MS);
    await addTestSubscription(app.services.db, {
      planId: "unlock",
      planType: "unlock",
      deviceLimit: 1,
      customerEmail,
      expiresAt: endsAt,
    });
    const before = (ms: number) => new Date(endsAt.getTime() - ms);
    expect(await remindersAt(customerEmail, "pass-ending", before(DAY_MS + HOUR_MS))).toHaveLength(0);
    expect(await remindersAt(customerEmail, "pass-ending", before(DAY_MS - HOUR_MS))).toHaveLength(1);
    expect(await remindersAt(customerEmail, "pass-ending", before(HOUR_MS))).toHaveLength(1);
  });

  it("reminds a renewing yearly plan but neither a monthly plan nor a yearly one that is set to cancel", async () => {
    const endsAt = new Date(Date.now() + 20 * DAY_MS);
    const [renewing, monthly, cancelling] = ["renewing", "monthly", "cancelling"].map(
      (name) => `${name}-${kind}@example.com`,
    );
    const yearly = { planId: "pro-yearly", planType: "pro_yearly" as const, expiresAt: endsAt };
    await addTestSubscription(app.services.db, { ...yearly, customerEmail: renewing });
    await addTestSubscription(app.services.db, { customerEmail: monthly, expiresAt: endsAt });
    await addTestSubscription(app.services.db, {
      ...yearly,
      customerEmail: cancelling,
      cancelAtPeriodEnd: true,
    });
    await queueDueReminders(app.services, new Date(endsAt.getTime() - DAY_MS));
    expect((await queuedEmails(app, renewing!)).map((email) => email.kind)).toEqual(["renewal-reminder"]);
    expect(await queuedEmails(app, monthly!)).toHaveLength(0);
    expect(await queuedEmails(app, cancelling!)).toHaveLength(0);
  });
});
