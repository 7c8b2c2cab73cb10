// The staff inbox in a real browser at phone width (issue 15, decision 079): a visitor's message is
// listed with its reply link, marked answered through the confirmation dialog, and audited.
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, signUpAndConfirm, STAFF_EMAIL, toast } from "../support/admin-browser.ts";
import { startTestServer, type TestServer } from "../support/app.ts";
import { launchBrowser, waitForHydration } from "../support/browser.ts";

const require = createRequire(import.meta.url);
const AXE_SOURCE_PATH = require.resolve("axe-core/axe.min.js");

describe("the staff messages page in a real browser", () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    [server, browser] = await Promise.all([
      startTestServer({ env: { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` } }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("lists a visitor's message with a reply link, marks it answered with a reason, and the audit log shows it", async () => {
    const sent = await fetch(`${server.url}/api/send-contact-email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "Ada Obi",
        email: "ada@example.com",
        subject: "Showmax on my TV",
        message: "Hello, can I use my config on a smart TV?",
      }),
    });
    expect(sent.status).toBe(200);

    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signUpAndConfirm(page, server, STAFF_EMAIL);
    await page.waitForURL(`${server.url}/admin/blog`);

    await page.goto(`${server.url}/admin/messages`);
    await waitForHydration(page);
    await page.getByRole("heading", { level: 1, name: "Messages" }).waitFor();
    const message = page.getByRole("article", { name: "Showmax on my TV" });
    await message.getByText("Hello, can I use my config on a smart TV?").waitFor();
    const reply = await message.getByRole("link", { name: "Reply by e-mail" }).getAttribute("href");
    expect(reply).toMatch(/^mailto:ada@example\.com\?subject=Re%3A%20Showmax%20on%20my%20TV&body=/);
    await message.getByText("No subscription with this e-mail.").waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    await page.evaluate(await fs.readFile(AXE_SOURCE_PATH, "utf8"));
    const violations = await page.evaluate(async () => {
      const { axe } = window as unknown as {
        axe: { run(): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> };
      };
      const result = await axe.run();
      return result.violations.map(
        (violation) => `${violation.id} ${JSON.stringify(violation.nodes[0]?.target)}`,
      );
    });
    expect(violations).toEqual([]);

    await message.getByRole("button", { name: "Mark answered" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Reason (kept in the audit log)").fill("Sent the smart TV guide");
    await dialog.getByRole("button", { name: "Mark answered" }).click();
    await toast(page, "Message marked answered").waitFor();
    await message.getByText("answered", { exact: true }).waitFor();
    await message.getByRole("button", { name: "Reopen" }).waitFor();
    expect(await message.getByRole("button", { name: "Mark answered" }).count()).toBe(0);

    await page.goto(`${server.url}/admin/audit`);
    const entry = page.locator("tbody tr").filter({ hasText: "message.answer" });
    await entry.getByText("Sent the smart TV guide").waitFor();
    expect(await entry.innerText()).toContain(STAFF_EMAIL);
    await context.close();
  });
});
