// Configuration Pending (issue 24, decision 111): a buyer who paid while no VPN server had room
// sees no "ready" toast, and the page turns into the config by itself, without a reload, once a
// server gets room.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { findPlan } from "#core/plans.ts";
import { vpnServers } from "#server/db/schema/index.ts";
import { useBrowserApp } from "../support/browser.ts";
import { addTestVpnServer } from "../support/vpn.ts";
import {
  buyUntilCheckout,
  downloadConfig,
  expectCompleteWireGuardConfig,
  expectToast,
  payOnCheckout,
} from "../support/purchase-browser.ts";

describe("Configuration Pending on the success page", () => {
  const app = useBrowserApp();

  it("shows no ready toast while no server has room, then the config without a reload once one has", async () => {
    const { db } = app.server.services;
    const context = await app.browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    // Every toast the page ever shows, kept even after it fades.
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { toastsSeen: string[] }).toastsSeen = seen;
      new MutationObserver(() => {
        for (const toast of document.querySelectorAll("[data-sonner-toast]")) {
          const text = (toast as HTMLElement).innerText;
          if (!seen.includes(text)) seen.push(text);
        }
      }).observe(document, { childList: true, subtree: true, characterData: true });
    });
    const toastsSeen = () => page.evaluate(() => (window as unknown as { toastsSeen: string[] }).toastsSeen);

    await buyUntilCheckout(page, app.server.url, findPlan("pro-monthly")!, "pending-buyer@example.com");
    // Checkout has started; now every server is full or drained (no room for the first device).
    await db.update(vpnServers).set({ status: "draining" }).where(eq(vpnServers.status, "active"));
    await payOnCheckout(page, "4242 4242 4242 4242");
    await page.waitForURL(/\/payment-success\?session_id=cs_test_/);
    await page.getByRole("heading", { name: "Configuration Pending" }).waitFor();
    expect(await page.getByTestId("pending-note").innerText()).toContain(
      "this page shows it as soon as it is ready",
    );
    expect(await page.getByTestId("devices-in-use").innerText()).toBe("0 of 3 in use");
    expect(await page.getByRole("button", { name: "Download .conf File" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Add another device" }).count()).toBe(0);
    // The page asks again on its own: wait for one such ask to be answered, still pending.
    await page.waitForResponse((response) => response.url().endsWith("/api/verify-payment"));
    await page.getByRole("heading", { name: "Configuration Pending" }).waitFor();
    expect((await toastsSeen()).filter((text) => /ready|Payment Successful/i.test(text))).toEqual([]);

    // The same document throughout: a reload would drop this mark.
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
    await addTestVpnServer(db, { name: "ng-lagos-2", octet: 82 });

    await page.getByRole("heading", { name: "Payment Successful!" }).waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(
      true,
    );
    await expectToast(page, "Payment Successful", "Your VPN configuration is ready.");
    expect(await page.getByTestId("devices-in-use").innerText()).toBe("1 of 3 in use");
    const { name, text } = await downloadConfig(page);
    expect(name).toBe("NaijaLink1.conf");
    expectCompleteWireGuardConfig(text);
    expect(text).toContain("Address = 10.82.0.");
    // The paying browser, with a server that has room, may now add a second device.
    await page.getByRole("button", { name: "Add another device" }).waitFor();
    await context.close();
  });
});
