// The plan-changed e-mail, rendered as it is queued.
import { describe, expect, it } from "vitest";
import { previewEmail } from "../../../tests/support/outbox.ts";

const site = {
  BRAND_NAME: "NaijaLink",
  PUBLIC_URL: "https://naijalink.example",
  SUPPORT_EMAIL: "support@naijalink.example",
};
const base = {
  fromPlanName: "Pro Monthly",
  toPlanName: "Basic Monthly",
  amount: "$1.50",
  chargedNow: false,
  byStaff: false,
  deviceLimit: 1,
  oneTime: false,
  periodEndsAt: new Date("2026-12-23T10:00:00Z"),
  revokedDevices: [] as string[],
} as const;

describe("the plan-changed e-mail", () => {
  it("a downgrade says what was credited and which devices stopped working", async () => {
    const email = await previewEmail(site, "plan-changed", {
      ...base,
      kind: "downgrade",
      direction: "credited",
      revokedDevices: ["Device 1", "Work laptop"],
    });
    expect(email.subject).toBe("Your NaijaLink plan: You are now on Basic Monthly");
    expect(email.text).toContain("Price difference: $1.50 credited to your next invoice");
    expect(email.text).toContain("Devices: Up to 1");
    expect(email.text).toContain("Renews on: December 23, 2026");
    expect(email.text).toContain("no longer connect: Device 1, Work laptop.");
    expect(email.text).toContain("https://naijalink.example/account");
  });

  it("a pass extension says what was charged and until when it runs; staff changes say so", async () => {
    const email = await previewEmail(site, "plan-changed", {
      ...base,
      kind: "pass-extend",
      fromPlanName: "Unlock Pass",
      toPlanName: "Unlock Pass",
      amount: "$9.99",
      direction: "charged",
      chargedNow: true,
      byStaff: true,
      oneTime: true,
    });
    expect(email.subject).toBe("Your NaijaLink plan: Your Unlock Pass has 7 more days");
    expect(email.text).toContain("Price difference: $9.99 charged now");
    expect(email.text).toContain("Access until: December 23, 2026");
    expect(email.text).toContain("Our support team changed your plan.");
    expect(email.text).not.toContain("no longer connect");
  });
});
