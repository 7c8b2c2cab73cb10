// Staff actions by the subscription's state (decision 102): the staff page offers only the actions
// that can apply, and the API refuses every other one with a 409 `{ error, message }` that changes
// nothing — a refunded or disputed subscription offers none at all.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  devices,
  outboxMessages,
  staffAuditLog,
  subscriptions,
  type Subscription,
} from "#server/db/schema/index.ts";
import { buy } from "../../support/account.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { createAccount, STAFF_EMAIL } from "../../support/staff.ts";

const DAY_MS = 86_400_000;
const LABELS = {
  extend: "Extend",
  "cancel-period-end": "Cancel at period end",
  "cancel-now": "Cancel now",
  refund: "Refund",
  reactivate: "Reactivate",
} as const;
type Action = keyof typeof LABELS;
const ACTIONS = Object.keys(LABELS) as Action[];

/** What each action's API call is. */
const CALLS: Record<Action, [path: string, body: Record<string, unknown>]> = {
  extend: ["extend", { days: 3 }],
  "cancel-period-end": ["cancel", { when: "period-end" }],
  "cancel-now": ["cancel", { when: "now" }],
  refund: ["refund", {}],
  reactivate: ["reactivate", {}],
};

/** Written out by hand, not derived from the rule: what staff may do in each state. */
const APPLICABLE: Record<string, Action[]> = {
  active: ["extend", "cancel-period-end", "cancel-now", "refund"],
  "active pass": ["extend", "cancel-now", "refund"],
  cancelling: ["extend", "cancel-now", "refund", "reactivate"],
  past_due: ["extend", "cancel-period-end", "cancel-now", "refund"],
  canceled: ["refund", "reactivate"],
  expired: ["refund"],
  refunded: [],
  disputed: [],
};

describe.each(databaseKinds)("staff actions by subscription state on %s", (kind) => {
  let app: TestApp;
  let cookie: string;
  let buyers = 0;
  const reason = "checking what applies";

  beforeAll(async () => {
    app = await createTestApp({ kind });
    cookie = (await createAccount(app, STAFF_EMAIL)).cookie;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  const admin = (path: string, body: unknown) =>
    app.request(`/api/admin/${path}`, { json: body, headers: { cookie } });
  const reread = async (id: string) =>
    (await app.services.db.select().from(subscriptions).where(eq(subscriptions.id, id)))[0]!;

  async function bought(planId = "pro-monthly"): Promise<Subscription> {
    const sessionId = await buy(app, planId, `state-${++buyers}@example.com`);
    const [row] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.checkoutSessionId, sessionId));
    return row!;
  }

  async function act(subscriptionId: string, action: Action) {
    const [path, body] = CALLS[action];
    return admin(`subscriptions/${path}`, { subscriptionId, reason, ...body });
  }

  /** Moves a subscription to the state named, the way that state comes about. */
  async function inState(state: string): Promise<Subscription> {
    const subscription = await bought(state === "active pass" ? "unlock" : "pro-monthly");
    const set = (changes: Partial<Subscription>) =>
      app.services.db
        .update(subscriptions)
        .set({ ...changes, updatedAt: new Date() })
        .where(eq(subscriptions.id, subscription.id));
    if (state === "cancelling") expect((await act(subscription.id, "cancel-period-end")).status).toBe(200);
    if (state === "canceled") expect((await act(subscription.id, "cancel-now")).status).toBe(200);
    if (state === "refunded") expect((await act(subscription.id, "refund")).status).toBe(200);
    // Stripe's webhooks make these (a failed renewal, the expiry job, a dispute).
    if (state === "past_due") await set({ status: "past_due" });
    if (state === "expired") await set({ status: "expired", expiresAt: new Date(Date.now() - DAY_MS) });
    if (state === "disputed") await set({ status: "disputed", expiresAt: new Date() });
    return reread(subscription.id);
  }

  async function everything(subscriptionId: string) {
    return {
      subscription: await reread(subscriptionId),
      devices: await app.services.db.select().from(devices).where(eq(devices.subscriptionId, subscriptionId)),
      audit: (await app.services.db.select({ id: staffAuditLog.id }).from(staffAuditLog)).length,
      outbox: (await app.services.db.select({ id: outboxMessages.id }).from(outboxMessages)).length,
    };
  }

  /** The staff actions the page offers: the buttons in its actions area. */
  async function offered(subscriptionId: string): Promise<Action[]> {
    const response = await app.request(`/admin/subscriptions/${subscriptionId}`, { headers: { cookie } });
    expect(response.status).toBe(200);
    const html = await response.text();
    const start = html.indexOf('data-testid="staff-actions"');
    if (start < 0) {
      expect(html).toContain('data-testid="no-staff-actions"');
      return [];
    }
    const area = html.slice(start, html.indexOf('aria-label="Devices"', start));
    return ACTIONS.filter((action) => area.includes(`>${LABELS[action]}</button>`));
  }

  it.each(Object.keys(APPLICABLE))(
    "offers only the actions that apply in state %s and refuses the others with 409",
    async (state) => {
      const subscription = await inState(state);
      expect(await offered(subscription.id)).toEqual(APPLICABLE[state]);
      const before = await everything(subscription.id);
      for (const action of ACTIONS.filter((candidate) => !APPLICABLE[state]!.includes(candidate))) {
        const response = await act(subscription.id, action);
        expect(response.status, `${state}: ${action}`).toBe(409);
        const answer = (await response.json()) as { error: string; message: string };
        expect(answer.error, `${state}: ${action}`).toEqual(expect.any(String));
        expect(answer.message, `${state}: ${action}`).toEqual(expect.any(String));
      }
      expect(await everything(subscription.id)).toEqual(before);
    },
  );

  it("refunds and cancels while other customers buy, without a deadlock between them", async () => {
    const flows = Array.from({ length: 12 }, async (_, index) => {
      const subscription = await bought();
      const response = await act(subscription.id, index % 2 ? "refund" : "cancel-now");
      return `${response.status}`;
    });
    expect(await Promise.all(flows)).toEqual(Array.from({ length: 12 }, () => "200"));
  });

  it("shows each state in its own words and colour: refunded is not green like active", async () => {
    const badge = async (state: string) => {
      const subscription = await inState(state);
      const html = await (
        await app.request(`/admin/subscriptions/${subscription.id}`, { headers: { cookie } })
      ).text();
      const tag = /<span[^>]*data-testid="subscription-status"[^>]*>([^<]*)<\/span>/.exec(html);
      expect(tag, state).not.toBeNull();
      const className = /class="([^"]*)"/.exec(tag![0])![1]!;
      return { word: tag![1]!, colour: className.split(" ").filter((name) => name.startsWith("bg-")) };
    };
    const states = ["active", "cancelling", "past_due", "canceled", "expired", "refunded", "disputed"];
    const shown = [];
    for (const state of states) shown.push(await badge(state));
    expect(new Set(shown.map((entry) => entry.word)).size).toBe(states.length);
    expect(new Set(shown.map((entry) => entry.colour.join(" "))).size).toBe(states.length);
    expect(shown[states.indexOf("refunded")]).toMatchObject({ word: "Refunded" });
    expect(shown[states.indexOf("refunded")]!.colour).not.toContain("bg-green-100");
    expect(shown[states.indexOf("active")]).toEqual({ word: "Active", colour: ["bg-green-100"] });
  });
});
