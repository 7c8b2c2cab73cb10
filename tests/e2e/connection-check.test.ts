// /check in a real browser (decision 069): both answers, at 320 px and on a desktop, readable
// without scrolling sideways and with no axe-core violation. The browser connects from
// 127.0.0.1, so that address is made a server's exit address for the "connected" answer: written
// into the database directly, since no node or operator may set a loopback exit (issue 25).
// Screenshots in test-results/check.
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { vpnServers } from "#server/db/schema/index.ts";
import { useBrowserApp, waitForStaticDocument } from "../support/browser.ts";
import { addTestVpnServer } from "../support/vpn.ts";

const require = createRequire(import.meta.url);
const AXE_SOURCE_PATH = require.resolve("axe-core/axe.min.js");
const SCREENSHOT_DIR = path.resolve(import.meta.dirname, "../../test-results/check");
const VIEWPORTS = [
  ["desktop", { width: 1280, height: 800 }],
  ["320 px", { width: 320, height: 640 }],
] as const;

describe("the connection check in a real browser", () => {
  const context = useBrowserApp({ backgroundJobs: false });

  async function open(viewport: { width: number; height: number }): Promise<Page> {
    const page = await context.browser.newPage({ viewport });
    await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
    await page.goto(`${context.server.url}/check`);
    await waitForStaticDocument(page);
    return page;
  }

  const serverName = "ng-lagos-browser";
  let browserIsOnExit: Promise<unknown> | undefined;
  async function makeBrowserAnExit() {
    const { db } = context.server.services;
    await addTestVpnServer(db, { name: serverName, octet: 96 });
    await db
      .update(vpnServers)
      .set({ exitAddresses: ["127.0.0.1"] })
      .where(eq(vpnServers.name, serverName));
  }

  async function axeViolations(page: Page): Promise<string[]> {
    await page.evaluate(await fs.readFile(AXE_SOURCE_PATH, "utf8"));
    return page.evaluate(async () => {
      const { axe } = window as unknown as {
        axe: { run(): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> };
      };
      const result = await axe.run();
      return result.violations.map(
        (violation) => `${violation.id} ${JSON.stringify(violation.nodes.map((node) => node.target))}`,
      );
    });
  }

  async function expectReadable(page: Page, name: string) {
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(scrollWidth, `${name}: no sideways scrolling`).toBeLessThanOrEqual(clientWidth);
    await fs.mkdir(SCREENSHOT_DIR, { recursive: true });
    const file = `${name.replace(/[^a-z0-9]+/g, "-")}.png`;
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, file), fullPage: true });
    // On a phone the shared header's menu is part of the page too.
    if (clientWidth < 768) await page.getByRole("button", { name: "Open menu" }).click();
    expect(await axeViolations(page), name).toEqual([]);
  }

  it.each(VIEWPORTS)(
    "says not connected, with what to check, and axe finds nothing (%s)",
    async (name, viewport) => {
      const page = await open(viewport);
      expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe(
        "No, you are not connected through Nigeria",
      );
      expect(await page.getByRole("heading", { name: "What to check" }).isVisible()).toBe(true);
      expect(await page.getByRole("link", { name: "Setup tutorial" }).getAttribute("href")).toBe("/tutorial");
      expect(await page.getByRole("link", { name: "Contact support" }).getAttribute("href")).toBe("/contact");
      await expectReadable(page, `not connected, ${name}`);
      await page.close();
    },
  );

  it.each(VIEWPORTS)(
    "says connected, with the server, and axe finds nothing (%s)",
    async (name, viewport) => {
      browserIsOnExit ??= makeBrowserAnExit();
      await browserIsOnExit;
      const page = await open(viewport);
      expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe(
        "Yes, you are connected through Nigeria",
      );
      const text = await page.locator("main").innerText();
      expect(text).toContain(serverName);
      expect(text).toContain("Lagos, Nigeria");
      await expectReadable(page, `connected, ${name}`);
      await page.close();
    },
  );

  it("is reached from step 3 of the tutorial", async () => {
    const page = await context.browser.newPage();
    await page.goto(`${context.server.url}/tutorial`);
    await waitForStaticDocument(page);
    await page.getByRole("link", { name: "Check that you are connected through Nigeria" }).click();
    await page.waitForURL(/\/check$/);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toMatch(/connected through Nigeria/);
    await page.close();
  });
});
