import { describe, expect, it } from "vitest";
import { DAY_MS } from "#server/domain/time.ts";
import { guaranteeOffer, guaranteeRefusal, type GuaranteeState } from "./guarantee.ts";

// The guarantee's rule (docs/product.md §3.3, decision 136), with `now` injected.

const boughtAt = new Date("2026-11-01T12:00:00Z");
const unused: GuaranteeState = {
  status: "active",
  expiresAt: new Date(boughtAt.getTime() + 30 * DAY_MS),
  boughtAt,
  demoPurchase: false,
  activatedAt: null,
  refundableCents: 799,
  currency: "usd",
};
const at = (days: number) => new Date(boughtAt.getTime() + days * DAY_MS);

describe("the 7-day guarantee's rule", () => {
  it("offers the whole refundable amount until 7 days after buying, and not one millisecond later", () => {
    expect(guaranteeOffer(unused, at(0))).toEqual({
      offered: true,
      amountCents: 799,
      currency: "usd",
      until: at(7).toISOString(),
    });
    expect(guaranteeRefusal(unused, new Date(at(7).getTime() - 1))).toBeNull();
    expect(guaranteeRefusal(unused, at(7))).toBe(
      "The 7-day guarantee of this purchase ended on November 8, 2026.",
    );
  });

  it("refuses once any config was activated, pointing at the 72-hour rule", () => {
    const reason = guaranteeRefusal({ ...unused, activatedAt: at(1) }, at(2));
    expect(reason).toMatch(/first used on November 2, 2026.*72 hours/);
  });

  it("refuses a refunded, disputed, demo, ended or fully refunded purchase, each with its own reason", () => {
    const reasons = [
      guaranteeRefusal({ ...unused, status: "refunded" }, at(1)),
      guaranteeRefusal({ ...unused, status: "disputed" }, at(1)),
      guaranteeRefusal({ ...unused, demoPurchase: true }, at(1)),
      guaranteeRefusal({ ...unused, status: "canceled" }, at(1)),
      guaranteeRefusal({ ...unused, refundableCents: 0 }, at(1)),
    ];
    expect(reasons.every((reason) => typeof reason === "string")).toBe(true);
    expect(new Set(reasons).size).toBe(reasons.length);
    expect(reasons[0]).toBe("This purchase has been refunded already.");
  });
});
