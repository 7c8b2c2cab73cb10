// The staff inbox in a real browser at phone width (issues 15 and 24, decisions 079 and 107): a
// visitor's message is answered from the page (the reply e-mailed, threaded, kept on the message),
// marked answered without a typed reason, and both are in the audit log, linked to the message.
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { Locator } from "playwright-core";
import { describe, expect, it } from "vitest";
import { signUpAndConfirm, STAFF_EMAIL, toast } from "../support/admin-browser.ts";
import { useBrowserApp, waitForHydration } from "../support/browser.ts";
import { contactMessages } from "#server/db/schema/index.ts";

const require = createRequire(import.meta.url);
const AXE_SOURCE_PATH = require.resolve("axe-core/axe.min.js");

describe("the staff messages page in a real browser", () => {
  const app = useBrowserApp({ ownUrl: true });

  /** Where an element rests once its entrance animation is over: the same box twice running. */
  async function restingBox(locator: Locator) {
    let last = JSON.stringify(await locator.boundingBox());
    await expect
      .poll(
        async () => {
          const now = JSON.stringify(await locator.boundingBox());
          const settled = now === last && now !== "null";
          last = now;
          return settled;
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(true);
    return JSON.parse(last) as { x: number; y: number; width: number; height: number };
  }

  /** Whether a toast, once at rest, shares any pixel with `control`. */
  async function covers(toastLocator: Locator, control: Locator): Promise<boolean> {
    const one = await restingBox(toastLocator);
    const two = (await control.boundingBox())!;
    return (
      one.x < two.x + two.width &&
      two.x < one.x + one.width &&
      one.y < two.y + two.height &&
      two.y < one.y + one.height
    );
  }

  /** The raw .eml (headers unfolded) the mail worker wrote to `to` of this kind, once it has. */
  async function emlTo(to: string, kind: string): Promise<string> {
    const outbox = path.join(app.server.dataDir, "outbox");
    const find = async () => {
      const names = (await fs.readdir(outbox).catch(() => [] as string[])).filter((name) =>
        name.includes(`-${kind}-`),
      );
      for (const name of names) {
        const text = await fs.readFile(path.join(outbox, name), "utf8");
        if (text.includes(`To: ${to}`)) return text.replace(/\r?\n[ \t]+/g, " ");
      }
      return null;
    };
    await expect
      .poll(find, { timeout: 60_000, message: `a ${kind} e-mail to ${to} in ${outbox}` })
      .not.toBeNull();
    return (await find())!;
  }

  it("answers a visitor's message from the page, marks it answered without a reason, and the audit log links both to it", async () => {
    const sent = await fetch(`${app.server.url}/api/send-contact-email`, {
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

    const context = await app.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signUpAndConfirm(page, app.server, STAFF_EMAIL);
    await page.waitForURL(`${app.server.url}/admin/blog`);

    await page.goto(`${app.server.url}/admin/messages`);
    await waitForHydration(page);
    await page.getByRole("heading", { level: 1, name: "Messages" }).waitFor();
    const message = page.getByRole("article", { name: "Showmax on my TV" });
    await message.getByText("Hello, can I use my config on a smart TV?").waitFor();
    expect(await message.getByRole("link", { name: /Reply by e-mail/ }).count()).toBe(0);
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

    // Low-risk: no dialog, no typed reason.
    await message.getByRole("button", { name: "Mark answered" }).click();
    const answered = toast(page, "Message marked answered");
    await answered.waitFor();
    expect(await page.getByRole("dialog").count()).toBe(0);
    // Once at rest the toast keeps clear of the header's controls (the Menu button): the console's
    // toasts sit at the bottom of the screen.
    expect(await covers(answered, page.getByRole("button", { name: "Menu" }))).toBe(false);
    expect((await restingBox(answered)).y).toBeGreaterThan(844 / 2);
    await message.getByText("answered", { exact: true }).waitFor();
    await message.getByRole("button", { name: "Reopen" }).waitFor();
    expect(await message.getByRole("button", { name: "Mark answered" }).count()).toBe(0);

    const replyBox = message.getByLabel("Reply to Ada Obi");
    await replyBox.fill("Hello Ada,\nYes: install WireGuard on the TV and import the config.");
    await message.getByRole("button", { name: "Send reply" }).click();
    await toast(page, "Reply sent").waitFor();
    const thread = message.getByRole("list", { name: "Replies" });
    await thread.getByText(`Reply by ${STAFF_EMAIL}`, { exact: false }).waitFor();
    await thread
      .getByText("Yes: install WireGuard on the TV and import the config.", { exact: false })
      .waitFor();
    expect(await replyBox.inputValue()).toBe("");

    const [stored] = await app.server.services.db.select({ id: contactMessages.id }).from(contactMessages);
    const eml = await emlTo("ada@example.com", "support-reply");
    expect(eml).toContain(`In-Reply-To: <contact-${stored!.id}@naijalink.example>`);
    expect(eml).toContain(`References: <contact-${stored!.id}@naijalink.example>`);
    expect(eml).toContain("From: NaijaLink Support <support@naijalink.example>");
    expect(eml).toContain("Subject: Re: Showmax on my TV");

    await page.goto(`${app.server.url}/admin/audit`);
    await waitForHydration(page);
    const entries = page.getByRole("list", { name: "Audit entries" }).getByRole("listitem");
    const replyEntry = entries.filter({ hasText: "message.reply" });
    const answerEntry = entries.filter({ hasText: "message.answer" });
    await replyEntry.waitFor();
    expect(await answerEntry.innerText()).toContain(STAFF_EMAIL);
    await replyEntry.getByRole("link", { name: /^message / }).click();
    await page.waitForURL(`${app.server.url}/admin/messages?id=${stored!.id}`);
    await page.getByRole("article", { name: "Showmax on my TV" }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await context.close();
  });
});
