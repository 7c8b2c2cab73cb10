// The buyer's own account in a real browser (issue 14, decision 067): sign in by the e-mailed
// link, see the plan and devices, add, rename, revoke, re-key and move; axe on both views.
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import { and, eq, isNull } from "drizzle-orm";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { formatLongDate } from "#core/format.ts";
import { findPlan } from "#core/plans.ts";
import { devices, outboxMessages, subscriptions, vpnServers } from "#server/db/schema/index.ts";
import { dashboardFigures } from "#server/domain/ops/dashboard.ts";
import { fullPeerSet } from "#server/domain/vpn/node-peers.ts";
import { signInLinkFromOutboxFiles } from "../support/account.ts";
import { queuedEmailsWhere } from "../support/outbox.ts";
import { useBrowserApp, waitForHydration } from "../support/browser.ts";
import { addTestVpnServer, treatDevelopmentServerAsReal } from "../support/vpn.ts";
import { buyUntilCheckout, expectToast, open, payOnCheckout } from "../support/purchase-browser.ts";

const require = createRequire(import.meta.url);
const AXE_SOURCE_PATH = require.resolve("axe-core/axe.min.js");
const EMAIL = "account-buyer@example.com";

const VIEWPORTS = [
  ["desktop", { width: 1280, height: 800 }],
  ["320 px", { width: 320, height: 640 }],
] as const;

describe("the buyer's account page", () => {
  const app = useBrowserApp({ ownUrl: true });
  /** The buyer's signed-in browser (a different one from the browser that paid). */
  let signedIn: BrowserContext;

  afterAll(async () => {
    await signedIn?.close();
  });

  /** Clicks a device's Download .conf; answers the link it fetched and the file's text. */
  async function download(page: Page, device: Locator) {
    const [file, request] = await Promise.all([
      page.waitForEvent("download", { timeout: 15_000 }),
      page.waitForRequest((request) => new URL(request.url()).pathname.startsWith("/api/configs/")),
      device.getByRole("button", { name: "Download .conf" }).click(),
    ]);
    return { url: request.url(), text: await fs.readFile((await file.path())!, "utf8") };
  }

  async function peerKeys() {
    const [row] = await app.server.services.db
      .select()
      .from(vpnServers)
      .where(eq(vpnServers.name, "ng-lagos-dev"));
    const set = await fullPeerSet(app.server.services.db, app.server.services.sealer, row!, new Date());
    if (set.kind !== "full") throw new Error("expected the full peer set");
    return set.peers.map((peer) => peer.publicKey);
  }

  /** The public key of the buyer's live device in `slot`. */
  async function livePublicKey(slot: number) {
    const [row] = await app.server.services.db
      .select({ publicKey: devices.publicKey })
      .from(devices)
      .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
      .where(and(eq(subscriptions.customerEmail, EMAIL), eq(devices.slot, slot), isNull(devices.revokedAt)));
    return row!.publicKey;
  }

  /** The name of the server the buyer's live device in `slot` is on. */
  async function serverOfDevice(slot: number) {
    const [row] = await app.server.services.db
      .select({ name: vpnServers.name })
      .from(devices)
      .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
      .innerJoin(vpnServers, eq(vpnServers.id, devices.vpnServerId))
      .where(and(eq(subscriptions.customerEmail, EMAIL), eq(devices.slot, slot), isNull(devices.revokedAt)));
    return row!.name;
  }

  // A journey of ten steps, each with page loads and e-mails: twice the budget of one step.
  it("buy, sign in by the e-mailed link, add and rename device 2, revoke device 1, new keys for device 2, move it, cancel and resume, receipt", async () => {
    const plan = findPlan("pro-monthly")!;
    const paying = await app.browser.newContext();
    const buyPage = await paying.newPage();
    await buyUntilCheckout(buyPage, app.server.url, plan, EMAIL);
    await payOnCheckout(buyPage, "4242 4242 4242 4242");
    await buyPage.waitForURL(/\/payment-success\?session_id=cs_test_/);
    await expectToast(buyPage, "Payment Successful");
    await paying.close();

    signedIn = await app.browser.newContext({ acceptDownloads: true });
    const page = await signedIn.newPage();
    await open(page, `${app.server.url}/account`);
    await page.getByLabel("E-mail address").fill(EMAIL);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByTestId("sign-in-sent").getByText("a sign-in link is on its way").waitFor();

    await open(page, await signInLinkFromOutboxFiles(app.server.dataDir, EMAIL));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${app.server.url}/account`);
    await waitForHydration(page);
    const [subscription] = await app.server.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.customerEmail, EMAIL));
    expect(await page.getByTestId("account-email").innerText()).toContain(EMAIL);
    expect(await page.getByTestId("plan-name").innerText()).toBe("Pro Monthly");
    expect(await page.getByTestId("subscription-status").innerText()).toBe("Active");
    expect(await page.getByTestId("date-label").innerText()).toBe("Next Billing");
    expect(await page.getByTestId("expiry-date").innerText()).toBe(formatLongDate(subscription!.expiresAt));
    const device1 = page.getByTestId("device-1");
    expect(await device1.getByTestId("device-name").innerText()).toBe("Device 1");
    expect(await device1.getByTestId("device-connection").innerText()).toBe("not connected yet");

    await page.getByRole("button", { name: "Add a device" }).click();
    await expectToast(page, "Device Added", "The config for device 2 is ready.");
    const device2 = page.getByTestId("device-2");
    await device2.waitFor();
    expect(await page.getByTestId("devices-in-use").innerText()).toBe("2 of 3 in use");
    await device2.getByRole("button", { name: "Rename" }).click();
    await device2.getByLabel("Device name").fill("Work laptop");
    await device2.getByRole("button", { name: "Save" }).click();
    await expectToast(page, "Device renamed");
    await expect.poll(() => device2.getByTestId("device-name").innerText()).toBe("Work laptop");

    // At 3 of 3, "Add a device" is not offered (it could only fail); revoking one offers it again.
    const addDevice = page.getByRole("button", { name: "Add a device" });
    await addDevice.click();
    await expectToast(page, "Device Added", "The config for device 3 is ready.");
    const device3 = page.getByTestId("device-3");
    await device3.waitFor();
    expect(await page.getByTestId("devices-in-use").innerText()).toBe("3 of 3 in use");
    await expect.poll(() => addDevice.count()).toBe(0);
    expect(await page.getByTestId("add-device-refusal").innerText()).toContain(
      "All 3 devices of this plan have a config",
    );
    await device3.getByRole("button", { name: "Revoke" }).click();
    await device3.getByRole("button", { name: "Revoke device" }).click();
    await expectToast(page, "Device revoked");
    await device3.waitFor({ state: "detached" });
    await addDevice.waitFor();

    const first = await download(page, device1);
    expect(first.text).toMatch(/^\[Interface\]/);
    const revokedKey = await livePublicKey(1);
    expect(await peerKeys()).toContain(revokedKey);
    await device1.getByRole("button", { name: "Revoke" }).click();
    await device1.getByRole("button", { name: "Revoke device" }).click();
    await expectToast(page, "Device revoked");
    await device1.waitFor({ state: "detached" });
    expect((await page.request.get(first.url)).status()).toBe(410);
    expect(await peerKeys()).not.toContain(revokedKey);

    const before = await download(page, device2);
    const oldKey = await livePublicKey(2);
    const keysBefore = await peerKeys();
    // New keys break the installed config: the page asks first, and "Keep current keys" changes nothing.
    await device2.getByRole("button", { name: "New keys" }).click();
    const rekeyQuestion = device2.getByRole("alert");
    expect(await rekeyQuestion.innerText()).toContain(
      "New keys for Work laptop? Its current config stops working",
    );
    await rekeyQuestion.getByRole("button", { name: "Keep current keys" }).click();
    await rekeyQuestion.waitFor({ state: "detached" });
    expect(await livePublicKey(2)).toBe(oldKey);
    expect(await peerKeys()).toEqual(keysBefore);
    expect((await page.request.get(before.url)).status()).toBe(200);
    await device2.getByRole("button", { name: "New keys" }).click();
    await device2.getByRole("alert").getByRole("button", { name: "Make new keys" }).click();
    await expectToast(page, "New keys ready");
    await expect.poll(async () => (await peerKeys()).join()).not.toBe(keysBefore.join());
    const after = await download(page, page.getByTestId("device-2"));
    expect(after.url).not.toBe(before.url);
    expect(after.text.match(/^PrivateKey = .*$/m)![0]).not.toBe(before.text.match(/^PrivateKey = .*$/m)![0]);
    expect(after.text.match(/^Address = .*$/m)![0]).toBe(before.text.match(/^Address = .*$/m)![0]);
    expect((await page.request.get(before.url)).status()).toBe(404);
    const keysAfter = await peerKeys();
    expect(keysAfter).not.toContain(oldKey);
    expect(keysAfter).toContain(await livePublicKey(2));

    // A second region gets room (and Lagos keeps some): device 2 moves there, keeping its link and keys.
    await treatDevelopmentServerAsReal(app.server.services.db);
    const abuja = await addTestVpnServer(app.server.services.db, {
      name: "ng-abuja-1",
      region: "ng-abuja",
      octet: 81,
    });
    await page.reload();
    await waitForHydration(page);
    const moving = page.getByTestId("device-2");
    expect(await moving.getByTestId("device-location").innerText()).toContain("Lagos, Nigeria");
    // Moving breaks the installed config too: it asks first, and Cancel leaves the device where it is.
    await moving.getByRole("button", { name: "Move" }).click();
    await moving.getByLabel("Move Work laptop to").selectOption({ label: "Abuja, Nigeria" });
    await moving.getByRole("button", { name: "Cancel" }).click();
    await moving.getByLabel("Move Work laptop to").waitFor({ state: "detached" });
    expect(await moving.getByTestId("device-location").innerText()).toContain("Lagos, Nigeria");
    expect(await serverOfDevice(2)).toBe("ng-lagos-dev");
    await moving.getByRole("button", { name: "Move" }).click();
    await moving.getByLabel("Move Work laptop to").selectOption({ label: "Abuja, Nigeria" });
    await moving.getByRole("button", { name: "Move device" }).click();
    await expectToast(page, "Device moved to Abuja, Nigeria");
    await expect
      .poll(() => moving.getByTestId("device-location").innerText())
      .toBe("Abuja, Nigeria · ng-abuja-1");
    expect(await moving.getByRole("status").innerText()).toContain("Download the new config");
    const moved = await download(page, moving);
    expect(moved.url).toBe(after.url);
    expect(moved.text.match(/^PrivateKey = .*$/m)![0]).toBe(after.text.match(/^PrivateKey = .*$/m)![0]);
    expect(moved.text).toContain("Address = 10.81.0.2/32");
    expect(moved.text).toContain(`PublicKey = ${abuja.publicKey}`);
    expect(await peerKeys()).not.toContain(await livePublicKey(2));

    const status = page.getByTestId("subscription-status");
    await page.getByRole("button", { name: "Cancel at period end" }).click();
    await expectToast(page, "Renewal Cancelled");
    await expect.poll(() => status.innerText()).toMatch(/^Cancels on \w+ \d{1,2}, \d{4}$/);
    expect(await page.getByTestId("date-label").innerText()).toBe("Cancels on");
    await page.getByRole("button", { name: "Resume renewal" }).click();
    await expectToast(page, "Renewal Resumed");
    await expect.poll(() => status.innerText()).toBe("Active");
    // Both changes were e-mailed, and a cancellation that no longer stands is not counted.
    const periodEmails = (await queuedEmailsWhere(app.server.services, eq(outboxMessages.toAddress, EMAIL)))
      .map((email) => email.kind)
      .filter((kind) => kind === "subscription-cancelled" || kind === "subscription-resumed");
    expect(periodEmails).toEqual(["subscription-cancelled", "subscription-resumed"]);
    expect((await dashboardFigures(app.server.services.db)).windows.today.cancellations).toBe(0);

    // Without Stripe, the payment history a portal would show; each payment leads to its receipt.
    await page.getByRole("button", { name: "Manage payment method and invoices" }).click();
    await page.waitForURL(`${app.server.url}/account/billing`);
    await page.getByRole("heading", { name: "Payments and invoices" }).waitFor();
    const payment = page.getByTestId("billing-history").getByRole("row").nth(1);
    expect(await payment.innerText()).toContain(plan.price);
    expect(await payment.innerText()).toContain("Paid");
    await payment.getByRole("link", { name: /^Receipt of order / }).click();
    await page.waitForURL(/\/account\/receipts\//);
    await page.getByRole("heading", { name: "Receipt" }).waitFor();
    expect(await page.getByTestId("order-number").innerText()).toMatch(
      /^[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}$/,
    );
    await page.close();
  }, 240_000);

  async function axeViolations(page: Page, viewport: { width: number }) {
    if (viewport.width < 768) await page.getByRole("button", { name: "Open menu" }).click();
    await page.evaluate(await fs.readFile(AXE_SOURCE_PATH, "utf8"));
    return page.evaluate(async () => {
      const axe = (
        window as unknown as {
          axe: { run(): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> };
        }
      ).axe;
      const result = await axe.run();
      return result.violations.map(
        (violation) =>
          `${violation.id} ${JSON.stringify(violation.nodes.map((node) => node.target).slice(0, 3))}`,
      );
    });
  }

  it.each(VIEWPORTS)(
    "axe-core finds no violation on /account signed out and signed in (%s)",
    async (_name, viewport) => {
      const signedOut = await app.browser.newPage({ viewport });
      await open(signedOut, `${app.server.url}/account`);
      const problems = (await axeViolations(signedOut, viewport)).map((problem) => `signed out: ${problem}`);
      await signedOut.close();

      expect(signedIn, "the purchase test signs the buyer in first").toBeDefined();
      const page = await signedIn.newPage();
      await page.setViewportSize(viewport);
      await open(page, `${app.server.url}/account`);
      await page.getByTestId("device-2").getByRole("button", { name: "Show QR Code" }).click();
      await page.getByRole("img", { name: /QR code/ }).waitFor();
      await page.getByTestId("device-2").getByRole("button", { name: "Move" }).click();
      await page.getByLabel("Move Work laptop to").waitFor();
      problems.push(...(await axeViolations(page, viewport)).map((problem) => `signed in: ${problem}`));
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      // The payment history ("Manage payment method and invoices" without Stripe) too.
      await open(page, `${app.server.url}/account/billing`);
      await page.getByRole("heading", { name: "Payments and invoices" }).waitFor();
      problems.push(...(await axeViolations(page, viewport)).map((problem) => `payments: ${problem}`));
      const wider = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(wider, "the payment history is wider than the screen").toBeLessThanOrEqual(0);
      await page.close();
      expect(problems).toEqual([]);
    },
  );
});
