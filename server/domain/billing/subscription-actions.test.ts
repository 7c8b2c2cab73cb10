// Billing's rule of which staff action applies in which state, at its edges:
// dates decide as much as statuses do.
import { describe, expect, it } from "vitest";
import { applicableStaffActions, requireApplicable, type SubscriptionState } from "./subscription-actions.ts";

const now = new Date("2026-11-26T12:00:00Z");
const DAY_MS = 86_400_000;
const later = new Date(now.getTime() + 10 * DAY_MS);
const earlier = new Date(now.getTime() - DAY_MS);
const monthly = (changes: Partial<SubscriptionState>): SubscriptionState => ({
  status: "active",
  cancelAtPeriodEnd: false,
  planId: "pro-monthly",
  expiresAt: later,
  ...changes,
});

describe("staff actions by state", () => {
  it("reactivates a cancelled plan only while the period it paid for lasts", () => {
    const cancelled = monthly({ status: "canceled", expiresAt: earlier });
    expect(applicableStaffActions({ ...cancelled, paidUntil: later }, now)).toEqual(["refund", "reactivate"]);
    expect(applicableStaffActions({ ...cancelled, paidUntil: earlier }, now)).toEqual(["refund"]);
    expect(applicableStaffActions({ ...cancelled, paidUntil: null }, now)).toEqual(["refund"]);
  });

  it("offers no cancel-at-period-end or resume once the period is over, even before the expiry job runs", () => {
    expect(applicableStaffActions(monthly({ expiresAt: earlier }), now)).toEqual([
      "extend",
      "cancel-now",
      "refund",
    ]);
    expect(applicableStaffActions(monthly({ expiresAt: earlier, cancelAtPeriodEnd: true }), now)).toEqual([
      "extend",
      "cancel-now",
      "refund",
    ]);
  });

  it("never cancels a pass at its period end: it does not renew", () => {
    expect(applicableStaffActions(monthly({ planId: "unlock" }), now)).toEqual([
      "extend",
      "cancel-now",
      "refund",
    ]);
  });

  it("offers nothing on a refunded or disputed plan, and says why when asked", () => {
    for (const status of ["refunded", "disputed"] as const) {
      expect(applicableStaffActions(monthly({ status }), now)).toEqual([]);
      expect(() => requireApplicable(monthly({ status }), "refund", now)).toThrow(
        status === "refunded" ? /refunded/ : /Stripe Dashboard/,
      );
    }
  });

  it("lets a demo purchase on a live store only end: no extend, refund or reactivate, and says why", () => {
    expect(applicableStaffActions(monthly({ demoPurchase: true }), now)).toEqual([
      "cancel-period-end",
      "cancel-now",
    ]);
    const cancelled = monthly({
      status: "canceled",
      expiresAt: earlier,
      paidUntil: later,
      demoPurchase: true,
    });
    expect(applicableStaffActions(cancelled, now)).toEqual([]);
    expect(() => requireApplicable(cancelled, "reactivate", now)).toThrow(/demo's test card/);
  });
});
