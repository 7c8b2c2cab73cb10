// Issue 22 in a real browser (decision 090): "Can't connect on this network? Use port 443" on the
// success page, in the config e-mail and on the account page, each giving the same device's config
// on port 443 (no extra slot); after the server's MTU changes, the account page and an e-mail say
// that a re-download is advised, and a download brings the new MTU.
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import { and, eq, isNull } from "drizzle-orm";
import type { BrowserContext, Download, Locator, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { findPlan } from "#core/plans.ts";
import { devices, outboxMessages, subscriptions } from "#server/db/schema/index.ts";
import type { OutgoingEmail } from "#server/domain/mail/transport.ts";
import { clientSettingChange } from "#server/domain/vpn/client-setting-commands.ts";
import { CONFIG_NOTICE_SETTLE_MS, queueConfigUpdateNotices } from "#server/domain/vpn/config-notices.ts";
import { changeServerSetting } from "#server/domain/vpn/server-edits.ts";
import { signInLinkFromOutboxFiles } from "../support/account.ts";
import { useBrowserApp, waitForHydration } from "../support/browser.ts";
import { queuedEmailsWhere } from "../support/outbox.ts";
import { configFields } from "../support/vpn.ts";
import {
  buyUntilCheckout,
  downloadConfig,
  expectToast,
  open,
  payOnCheckout,
} from "../support/purchase-browser.ts";

const require = createRequire(import.meta.url);
const AXE_SOURCE_PATH = require.resolve("axe-core/axe.min.js");
const EMAIL = "hotel-guest@example.com";
const OFFER = "Can't connect on this network? Use port 443";

async function saved(download: Download) {
  return { name: download.suggestedFilename(), text: await fs.readFile((await download.path())!, "utf8") };
}

/** Clicks the offer's download button; answers the saved file. */
async function downloadOffered(page: Page, offer: Locator) {
  const [download] = await Promise.all([
    page.waitForEvent("download", { timeout: 15_000 }),
    offer.getByRole("button", { name: "Download NaijaLink1-443.conf" }).click(),
  ]);
  return saved(download);
}

/** axe's findings inside `selector` (the parts this test is about; the pages have their own tests). */
async function axeViolations(page: Page, selector: string): Promise<string[]> {
  await page.evaluate(await fs.readFile(AXE_SOURCE_PATH, "utf8"));
  return page.evaluate(async (include) => {
    const { axe } = window as unknown as {
      axe: {
        run(
          context: string,
        ): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }>;
      };
    };
    return (await axe.run(include)).violations.map(
      (violation) => `${violation.id} ${JSON.stringify(violation.nodes.map((node) => node.target))}`,
    );
  }, selector);
}

describe("the port-443 offers and the re-download advice in a browser", () => {
  const app = useBrowserApp({ ownUrl: true });
  let buyer: BrowserContext;
  /** The config the success page saved first, to compare the others with. */
  let usual: { name: string; text: string };

  afterAll(async () => {
    await buyer?.close();
  });

  /** Every e-mail of `kind` queued for the buyer (sent or not), oldest first, as it is sent. */
  async function emailsOf(kind: string): Promise<OutgoingEmail[]> {
    const queued = await queuedEmailsWhere(app.server.services, eq(outboxMessages.toAddress, EMAIL));
    return queued.filter((email) => email.kind === kind);
  }

  /** The e-mail's HTML opened in a tab, as a mail client shows it. */
  async function openEmail(email: OutgoingEmail): Promise<Page> {
    const page = await buyer.newPage();
    await page.setContent(email.html!);
    return page;
  }

  const liveDevices = () =>
    app.server.services.db
      .select({ id: devices.id })
      .from(devices)
      .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
      .where(and(eq(subscriptions.customerEmail, EMAIL), isNull(devices.revokedAt)));

  it("offers the same device on port 443 on the success page and in the config e-mail, with no extra slot", async () => {
    buyer = await app.browser.newContext({ acceptDownloads: true });
    const page = await buyer.newPage();
    await buyUntilCheckout(page, app.server.url, findPlan("pro-monthly")!, EMAIL);
    await payOnCheckout(page, "4242 4242 4242 4242");
    await page.waitForURL(/\/payment-success\?session_id=cs_test_/);
    await expectToast(page, "Payment Successful");
    const card = page.getByTestId("config-1");
    usual = await downloadConfig(page, card);
    expect(configFields(usual.text)).toMatchObject({ MTU: "1280", Endpoint: "vpn.naijalink.example:51820" });

    const offer = card.getByTestId("alternate-port-offer");
    expect(await offer.innerText()).toContain(OFFER);
    const variant = await downloadOffered(page, offer);
    expect(variant.name).toBe("NaijaLink1-443.conf");
    expect(variant.text).toBe(
      usual.text.replace("Endpoint = vpn.naijalink.example:51820", "Endpoint = vpn.naijalink.example:443"),
    );
    await offer.getByRole("button", { name: "Show port 443 QR Code" }).click();
    await offer
      .getByRole("img", { name: "QR code of the WireGuard config for device 1 on port 443" })
      .waitFor();
    expect(await page.getByTestId("devices-in-use").innerText()).toBe("1 of 3 in use");
    expect(await liveDevices()).toHaveLength(1);
    expect(await axeViolations(page, '[data-testid="alternate-port-offer"]')).toEqual([]);

    const [configEmail] = await emailsOf("vpn-config");
    const mail = await openEmail(configEmail!);
    await mail.getByText(OFFER).waitFor();
    const href = await mail.getByRole("link", { name: /\?port=443$/ }).getAttribute("href");
    expect(href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/configs\/[A-Za-z0-9_-]+\?port=443$/);
    const fromMail = await page.request.get(href!);
    expect(fromMail.status()).toBe(200);
    expect(await fromMail.text()).toBe(variant.text);
    await mail.close();
    await page.close();
  });

  it("offers it on the account page too, and says a re-download is advised after the server's MTU changed", async () => {
    const page = await buyer.newPage();
    await open(page, `${app.server.url}/account`);
    await page.getByLabel("E-mail address").fill(EMAIL);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByTestId("sign-in-sent").waitFor();
    await open(page, await signInLinkFromOutboxFiles(app.server.dataDir, EMAIL));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${app.server.url}/account`);
    await waitForHydration(page);
    const device = page.getByTestId("device-1");
    const offer = device.getByTestId("alternate-port-offer");
    expect(await offer.innerText()).toContain(OFFER);
    expect(configFields((await downloadOffered(page, offer)).text).Endpoint).toBe(
      "vpn.naijalink.example:443",
    );
    expect(await device.getByTestId("config-outdated").count()).toBe(0);

    await changeServerSetting(
      app.server.services.db,
      "ng-lagos-dev",
      clientSettingChange({ command: "set-mtu", server: "ng-lagos-dev", mtu: 1400 }),
    );
    await open(page, `${app.server.url}/account`);
    const note = device.getByTestId("config-outdated");
    expect(await note.innerText()).toContain("download its config again");
    expect(await axeViolations(page, '[data-testid="device-1"]')).toEqual([]);

    // Once the change has settled, the owner is e-mailed the fresh links.
    await queueConfigUpdateNotices(
      app.server.services,
      new Date(Date.now() + CONFIG_NOTICE_SETTLE_MS + 60_000),
    );
    const [update] = await emailsOf("config-update");
    const mail = await openEmail(update!);
    await mail.getByRole("heading", { name: "New settings: download your config again" }).waitFor();
    const link = await mail
      .getByRole("link", { name: /\/api\/configs\/[^?]+$/ })
      .first()
      .getAttribute("href");
    await mail.close();

    // A download from the page brings the new MTU, and the note goes.
    const [download] = await Promise.all([
      page.waitForEvent("download", { timeout: 15_000 }),
      device.getByRole("button", { name: "Download .conf" }).click(),
    ]);
    const fresh = await saved(download);
    expect(configFields(fresh.text)).toMatchObject({
      MTU: "1400",
      PrivateKey: configFields(usual.text).PrivateKey,
    });
    await note.waitFor({ state: "detached" });
    // The e-mailed link is the same config.
    expect(await (await page.request.get(link!)).text()).toBe(fresh.text);
    await page.close();
  });
});
