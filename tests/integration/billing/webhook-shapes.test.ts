// Issue 25: a correctly signed Stripe event of an odd shape is acknowledged (2xx) and logged,
// changes nothing, and is never a 500 (six such charge.dispute.created events gave 500s).
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "../../support/database.ts";
import {
  createStripeTestApp,
  STAND_IN_WEBHOOK_SECRET,
  type StripeStandIn,
} from "../../support/stripe-stand-in.ts";
import type { TestApp } from "../../support/app.ts";
import { tableDigests } from "../../support/table-digest.ts";

const signer = new Stripe("sk_test_unused");
let counter = 0;

/** Posts `payload` (any JSON text) with Stripe's signature over it. */
function postSigned(app: TestApp, payload: string) {
  return app.request("/api/webhooks/stripe", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "stripe-signature": signer.webhooks.generateTestHeaderString({
        payload,
        secret: STAND_IN_WEBHOOK_SECRET,
      }),
    },
    body: payload,
  });
}

const event = (type: string, object: unknown) =>
  JSON.stringify({ id: `evt_shape_${++counter}`, object: "event", type, data: { object } });

describe.each(databaseKinds)("signed Stripe events of odd shapes on %s", (kind) => {
  let app: TestApp;
  let standIn: StripeStandIn;
  beforeAll(async () => {
    ({ app, standIn } = await createStripeTestApp({ kind }));
  }, 240_000);
  afterAll(async () => {
    await app?.close();
    await standIn?.close();
  });

  it("acknowledges and logs malformed charge.dispute.created events, changing nothing", async () => {
    const before = await tableDigests(app.services.db);
    const disputes: unknown[] = [
      null,
      {},
      { id: "dp_1", charge: 42, amount: 500, currency: "usd" },
      { id: "dp_2", charge: "ch_1", amount: "500", currency: "usd" },
      { id: "dp_3", charge: { customer: 7 }, amount: 500, currency: "usd" },
      { id: "dp_4", charge: "ch_1", amount: -1, currency: "US dollars" },
      { id: ["dp_5"], charge: "ch_1", amount: 500, currency: "usd" },
      { id: "dp_6", charge: "ch_1", amount: 1e300, currency: "usd", evidence_details: { due_by: "soon" } },
    ];
    for (const dispute of disputes) {
      const response = await postSigned(app, event("charge.dispute.created", dispute));
      expect(response.status, JSON.stringify(dispute)).toBe(200);
      expect(await response.json()).toMatchObject({ received: true, ignored: true });
    }
    const logged = app.log
      .entries()
      .filter((entry) => entry.msg === "stripe webhook with an unexpected shape: acknowledged, not applied");
    expect(logged).toHaveLength(disputes.length);
    expect(logged[0]).toMatchObject({
      type: "charge.dispute.created",
      problem: expect.stringContaining("data.object"),
    });
    expect(await tableDigests(app.services.db)).toEqual(before);
  });

  it("acknowledges an odd envelope or odd objects of the other event types the same way", async () => {
    const before = await tableDigests(app.services.db);
    for (const payload of [
      JSON.stringify({ object: "event", type: "charge.refunded", data: { object: {} } }),
      JSON.stringify({ id: "evt_no_data", type: "invoice.paid" }),
      JSON.stringify([1, 2, 3]),
      event("checkout.session.completed", { id: 5, payment_status: "paid" }),
      event("invoice.paid", { lines: "none" }),
      event("customer.subscription.updated", { id: "sub_1", status: "active", items: null }),
      event("charge.refunded", { id: "ch_1", refunded: "yes" }),
    ]) {
      const response = await postSigned(app, payload);
      expect(response.status, payload).toBe(200);
    }
    expect(await tableDigests(app.services.db)).toEqual(before);
    expect(app.log.text).not.toContain("unexpected API error");
  });
});
