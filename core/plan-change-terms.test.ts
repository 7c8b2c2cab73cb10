// The price of a plan change: Stripe's proration rule, to the second.
import { describe, expect, it } from "vitest";
import { planChangeRefusal, planChangeTargets, planChangeTerms as termsOf } from "./plan-change-terms.ts";
import { findPlan, PLANS } from "./plans.ts";

const planChangeTerms = (from: string, to: string, periodEndsAt: Date, at: Date) =>
  termsOf(findPlan(from)!, findPlan(to)!, periodEndsAt, at);

const DAY_MS = 86_400_000;
const now = new Date("2026-11-26T12:00:00Z");
const inDays = (days: number) => new Date(now.getTime() + days * DAY_MS);

describe("plan change terms", () => {
  it("an upgrade halfway through the month charges half the difference on the next invoice", () => {
    const terms = planChangeTerms("basic-monthly", "pro-monthly", inDays(15), now);
    expect(terms).toMatchObject({ kind: "upgrade", chargedNow: false, throughCheckout: false });
    expect(terms.amountCents).toBe(Math.round(799 / 2) - Math.round(499 / 2));
    expect(terms.periodEndsAt).toEqual(inDays(15));
  });

  it("a downgrade credits the unused difference", () => {
    const terms = planChangeTerms("pro-monthly", "basic-monthly", inDays(30), now);
    expect(terms).toMatchObject({ kind: "downgrade", amountCents: 499 - 799, chargedNow: false });
  });

  it("monthly to yearly starts a year now, charging the year less the unused month", () => {
    const terms = planChangeTerms("pro-monthly", "pro-yearly", inDays(10), now);
    expect(terms).toMatchObject({ kind: "switch", chargedNow: true });
    expect(terms.amountCents).toBe(7999 - Math.round(799 / 3));
    expect(terms.periodEndsAt).toEqual(inDays(365));
  });

  it("yearly to Basic Monthly is a downgrade that starts a month now", () => {
    const terms = planChangeTerms("pro-yearly", "basic-monthly", inDays(365), now);
    expect(terms).toMatchObject({ kind: "downgrade", chargedNow: true, amountCents: 499 - 7999 });
    expect(terms.periodEndsAt).toEqual(inDays(30));
  });

  it("an Unlock Pass pays 7 more days from its end, or from now once it has ended", () => {
    expect(planChangeTerms("unlock", "unlock", inDays(3), now)).toMatchObject({
      kind: "pass-extend",
      amountCents: 999,
      throughCheckout: true,
      periodEndsAt: inDays(10),
    });
    expect(planChangeTerms("unlock", "unlock", inDays(-1), now).periodEndsAt).toEqual(inDays(7));
  });

  it("an Unlock Pass moves to a plan paid in full, never losing its remaining days", () => {
    const terms = planChangeTerms("unlock", "pro-monthly", inDays(5), now);
    expect(terms).toMatchObject({ kind: "pass-to-subscription", amountCents: 799, throughCheckout: true });
    expect(terms.periodEndsAt).toEqual(inDays(30));
  });

  it("refuses the same plan and a subscription becoming a pass", () => {
    expect(planChangeRefusal(findPlan("basic-monthly")!, findPlan("basic-monthly")!)).toMatch(/already/);
    expect(planChangeRefusal(findPlan("pro-yearly")!, findPlan("unlock")!)).toMatch(/cannot become/);
    expect(planChangeRefusal(findPlan("unlock")!, findPlan("unlock")!)).toBeNull();
  });

  it("offers a pass every plan, itself included, and a subscription the other recurring plans", () => {
    expect(planChangeTargets(findPlan("unlock")!, PLANS).map((plan) => plan.id)).toEqual(
      PLANS.map((plan) => plan.id),
    );
    expect(planChangeTargets(findPlan("pro-monthly")!, PLANS).map((plan) => plan.id)).toEqual(
      PLANS.filter((plan) => plan.billing === "recurring" && plan.id !== "pro-monthly").map(
        (plan) => plan.id,
      ),
    );
  });
});
