// /check's DNS test in a real browser (issue 22, decision 091): the page has the browser look up a
// per-visit name under the check zone and asks GET /api/check/dns until a node's resolver reported
// it. Here no node's resolver is on the path, so the test stands in for it: it catches the
// browser's request for the name (which a real network resolves through the tunnel) and reports
// the name as the node's agent does. The "no" answer comes after the page's waiting time, which
// the test moves on with the browser's clock. Both answers pass axe.
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { vpnServers } from "#server/db/schema/index.ts";
import { rotateNodeToken } from "#server/domain/vpn/servers.ts";
import { useBrowserApp, waitForStaticDocument } from "../support/browser.ts";

const require = createRequire(import.meta.url);
const AXE_SOURCE_PATH = require.resolve("axe-core/axe.min.js");
const ZONE = "dns-check.internal";

describe("the DNS check of /check in a real browser", () => {
  const context = useBrowserApp({ backgroundJobs: false });

  async function axeViolations(page: Page): Promise<string[]> {
    await page.evaluate(await fs.readFile(AXE_SOURCE_PATH, "utf8"));
    return page.evaluate(async () => {
      const { axe } = window as unknown as {
        axe: { run(): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> };
      };
      return (await axe.run()).violations.map(
        (violation) => `${violation.id} ${JSON.stringify(violation.nodes.map((node) => node.target))}`,
      );
    });
  }

  /**
   * The browser comes from 127.0.0.1, which no entry point takes as an exit address (decision 086):
   * it is written into the row directly, as the stand-in for the server's public address.
   */
  const exitFromBrowser = (exitAddresses: string[]) =>
    context.server.services.db
      .update(vpnServers)
      .set({ exitAddresses })
      .where(eq(vpnServers.name, "ng-lagos-dev"));

  /** Opens /check with the browser on the development server's exit address; answers the names it looked up. */
  async function openCheck(options: { fakeClock?: boolean } = {}) {
    await exitFromBrowser(["127.0.0.1"]);
    const page = await context.browser.newPage();
    if (options.fakeClock) await page.clock.install();
    const names: string[] = [];
    await page.route(`https://*.${ZONE}/**`, async (route) => {
      names.push(new URL(route.request().url()).hostname);
      await route.fulfill({ status: 204 });
    });
    await page.goto(`${context.server.url}/check`);
    await waitForStaticDocument(page);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe(
      "Yes, you are connected through Nigeria",
    );
    return { page, names };
  }

  const advice = (page: Page) => page.getByRole("heading", { name: "If it does not work on this network" });

  it("says yes, naming the server, once the node's resolver reported the page's name", async () => {
    const { page, names } = await openCheck();
    await expect.poll(() => names.length).toBe(1);
    const [nonce, ...zone] = names[0]!.split(".");
    expect(zone.join(".")).toBe(ZONE);
    expect(nonce).toMatch(/^[0-9a-f]{32}$/);
    await page.getByText("Checking which resolver answers for you").waitFor();

    const { db } = context.server.services;
    const { nodeToken } = (await rotateNodeToken(db, "ng-lagos-dev"))!;
    const [server] = await db.select().from(vpnServers).where(eq(vpnServers.name, "ng-lagos-dev"));
    const reported = await fetch(`${context.server.url}/api/nodes/status`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${nodeToken}` },
      body: JSON.stringify({ publicKey: server!.publicKey, dnsChecks: [nonce] }),
    });
    expect(reported.status).toBe(200);

    const yes = page.getByText("Yes, your DNS goes through the tunnel");
    await yes.waitFor({ timeout: 20_000 });
    expect(await yes.innerText()).toContain("server ng-lagos-dev's own resolver answered");
    expect(await advice(page).isVisible()).toBe(false);
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it("says no after its waiting time when no node's resolver saw the name, with what to do", async () => {
    const { page, names } = await openCheck({ fakeClock: true });
    await expect.poll(() => names.length).toBe(1);
    const answered = page.waitForResponse((response) => response.url().includes("/api/check/dns?nonce="));
    await page.getByText("Checking which resolver answers for you").waitFor();
    await answered;
    expect(await advice(page).isVisible()).toBe(false);
    await page.clock.fastForward(31_000);

    await page.getByText("No, your DNS does not go through").waitFor({ timeout: 20_000 });
    await advice(page).waitFor();
    const text = await page.locator("main").innerText();
    expect(text).toContain("Can't connect on this network? Use port 443.");
    expect(text).toContain("Pages load but videos or downloads stall?");
    expect(await page.getByRole("link", { name: "your account page" }).getAttribute("href")).toBe("/account");
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it("shows the advice at once to a visitor who is not connected through Nigeria", async () => {
    await exitFromBrowser([]);
    const page = await context.browser.newPage({ viewport: { width: 320, height: 640 } });
    await page.route(`https://*.${ZONE}/**`, (route) => route.fulfill({ status: 204 }));
    await page.goto(`${context.server.url}/check`);
    await waitForStaticDocument(page);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe(
      "No, you are not connected through Nigeria",
    );
    await advice(page).waitFor();
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });
});
