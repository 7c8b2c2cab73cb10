// Shared steps of the purchase browser tests: what a new buyer does, click by click.
import fs from "node:fs/promises";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import type { Plan } from "#core/plans.ts";
import { waitForHydration } from "./browser.ts";

export async function open(page: Page, url: string) {
  await page.goto(url);
  await waitForHydration(page);
}

/** A toast (sonner) with this title, and optionally its description. */
export async function expectToast(page: Page, title: string, description?: string) {
  let toast = page.locator("[data-sonner-toast]").filter({ hasText: title });
  if (description) toast = toast.filter({ hasText: description });
  await toast.first().waitFor({ state: "visible", timeout: 10_000 });
  const text = await toast.first().innerText();
  expect(text).toContain(title);
  if (description) expect(text).toContain(description);
  return toast.first();
}

/** Choose Plan → Your Details → Payment → the hosted checkout; returns on the checkout page. */
export async function buyUntilCheckout(page: Page, baseUrl: string, plan: Plan, email: string) {
  await open(page, `${baseUrl}/get-started`);
  const proceed = page.getByRole("button", { name: "Continue to Details" });
  expect(await proceed.isDisabled()).toBe(true);
  await page.getByRole("radio", { name: plan.name }).check();
  await proceed.click();
  await page.waitForURL(`${baseUrl}/get-started/details`);
  await page.getByTestId("plan-summary").getByText(plan.name, { exact: true }).waitFor();
  await page.getByLabel("First Name").fill("Ada");
  await page.getByLabel("Last Name").fill("Obi");
  await page.getByLabel("Email Address").fill(email);
  await page.getByLabel("Country").fill("United Kingdom");
  await page.getByRole("button", { name: "Continue to Payment" }).click();
  await page.waitForURL(`${baseUrl}/get-started/payment`);
  await page.getByTestId("order-total").getByText(plan.price).waitFor();
  await page.getByRole("checkbox").check();
  await page.getByRole("button", { name: "Complete Payment" }).click();
  await page.waitForURL(/\/checkout\/cs_test_/);
  await waitForHydration(page);
}

export async function payOnCheckout(page: Page, cardNumber: string) {
  await page.getByLabel("Card number").fill(cardNumber);
  await page.getByLabel("Expiry (MM/YY)").fill("12/34");
  await page.getByLabel("CVC").fill("123");
  await page.getByRole("button", { name: /^Pay \$/ }).click();
}

/** Clicks a Download .conf File button and returns the saved file's name and text. */
export async function downloadConfig(page: Page, scope = page.locator("body")) {
  const [download] = await Promise.all([
    page.waitForEvent("download", { timeout: 15_000 }),
    scope.getByRole("button", { name: "Download .conf File" }).first().click(),
  ]);
  const file = await download.path();
  return { name: download.suggestedFilename(), text: await fs.readFile(file!, "utf8") };
}

const KEY = "[A-Za-z0-9+/]{43}=";

/** A complete WireGuard client config: every field a client needs, in both sections. */
export function expectCompleteWireGuardConfig(text: string) {
  const [iface, peer] = text.split("[Peer]");
  expect(iface).toMatch(/^\[Interface\]/);
  expect(iface).toMatch(new RegExp(`^PrivateKey = ${KEY}$`, "m"));
  expect(iface).toMatch(/^Address = \d+\.\d+\.\d+\.\d+\/32, [0-9a-f:]+\/128$/m);
  expect(iface).toMatch(/^DNS = .+$/m);
  expect(peer).toMatch(new RegExp(`^PublicKey = ${KEY}$`, "m"));
  expect(peer).toMatch(new RegExp(`^PresharedKey = ${KEY}$`, "m"));
  expect(peer).toMatch(/^Endpoint = [^\s]+:\d+$/m);
  expect(peer).toMatch(/^AllowedIPs = 0\.0\.0\.0\/0, ::\/0$/m);
  expect(peer).toMatch(/^PersistentKeepalive = 25$/m);
}
