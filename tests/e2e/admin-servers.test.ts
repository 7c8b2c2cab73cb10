// The servers page as staff use it: add a server (its node token shown once), drain it, and find
// both actions with their reasons in the audit log; axe-core at desktop and 390 px wide.
import { createRequire } from "node:module";
import fs from "node:fs/promises";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { vpnServers } from "#server/db/schema/index.ts";
import { hashToken } from "#server/secrets.ts";
import { signUpAndConfirm, STAFF_EMAIL, toast } from "../support/admin-browser.ts";
import { useBrowserApp, waitForHydration } from "../support/browser.ts";

const require = createRequire(import.meta.url);
const AXE_SOURCE_PATH = require.resolve("axe-core/axe.min.js");

describe("the staff servers page in a real browser", () => {
  const app = useBrowserApp({ ownUrl: true });
  let page: Page;

  beforeAll(async () => {
    page = await (await app.browser.newContext()).newPage();
    await signUpAndConfirm(page, app.server, STAFF_EMAIL);
    await page.waitForURL(`${app.server.url}/admin/blog`);
  });

  async function openServers() {
    await page.goto(`${app.server.url}/admin/servers`);
    await waitForHydration(page);
    await page.getByRole("heading", { name: "Servers", level: 1 }).waitFor();
  }

  it("adds a server and shows its node token once, drains it, and the audit log lists both with their reasons", async () => {
    await openServers();
    await page.getByRole("heading", { name: "ng-lagos-dev" }).waitFor();

    await page.getByRole("button", { name: "Add server" }).click();
    const addDialog = page.getByRole("dialog", { name: "Add a VPN server" });
    await addDialog.getByLabel("Name").fill("ng-e2e-1");
    await addDialog.getByLabel("Endpoint (host:port)").fill("vpn-e2e.example.com:51820");
    await addDialog.getByLabel("IPv4 pool").fill("10.77.0.0/16");
    await addDialog.getByLabel("IPv6 pool").fill("fd77::/64");
    await addDialog.getByLabel("Reason (kept in the audit log)").fill("more room for London buyers");
    await addDialog.getByRole("button", { name: "Add server" }).click();
    await toast(page, "Server added. Store its node token now.").waitFor();
    const token = await page.getByTestId("node-token").innerText();
    const [row] = await app.server.services.db
      .select()
      .from(vpnServers)
      .where(eq(vpnServers.name, "ng-e2e-1"));
    expect(row!.nodeTokenHash).toBe(hashToken(token));

    const card = page.getByRole("article", { name: "ng-e2e-1" });
    await card.getByText("awaiting its node", { exact: true }).waitFor();
    await card.getByRole("button", { name: "Drain" }).click();
    const drainDialog = page.getByRole("dialog", { name: "Drain ng-e2e-1" });
    await drainDialog.getByLabel("Reason (kept in the audit log)").fill("testing the drain");
    await drainDialog.getByRole("button", { name: "Drain" }).click();
    await toast(page, "Server draining.").waitFor();
    await card.getByText("draining", { exact: true }).waitFor();
    await card.getByRole("button", { name: "Enable" }).waitFor();

    // Shown once: a fresh load of the page no longer has it.
    await openServers();
    expect(await page.content()).not.toContain(token);

    await page.goto(`${app.server.url}/admin/audit`);
    const entries = page.locator("tbody tr");
    await expect.poll(() => entries.first().innerText()).toContain("server.drain");
    expect(await entries.nth(0).innerText()).toContain("testing the drain");
    expect(await entries.nth(1).innerText()).toContain("server.add");
    expect(await entries.nth(1).innerText()).toContain("more room for London buyers");
  });

  it.each([
    ["desktop", { width: 1280, height: 800 }],
    ["390 px", { width: 390, height: 844 }],
  ] as const)("axe-core finds no violation on /admin/servers (%s)", async (_name, viewport) => {
    await page.setViewportSize(viewport);
    await openServers();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      viewport.width,
    );
    await page.evaluate(await fs.readFile(AXE_SOURCE_PATH, "utf8"));
    const violations = await page.evaluate(async () => {
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
    expect(violations).toEqual([]);
  });
});
