// The contact form in a real browser: validation, Sending..., success into the outbox, failure.
import fs from "node:fs/promises";
import path from "node:path";
import type { Page, Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useBrowserApp, waitForHydration } from "../support/browser.ts";

describe("the contact form in a real browser", () => {
  const app = useBrowserApp();

  async function openContact(): Promise<Page> {
    const page = await app.browser.newPage();
    await page.goto(`${app.server.url}/contact`);
    await waitForHydration(page);
    return page;
  }

  async function fill(page: Page, values: { name: string; email: string; subject: string; message: string }) {
    await page.getByLabel("Full Name").fill(values.name);
    await page.getByLabel("Email Address").fill(values.email);
    await page.getByLabel("Subject").fill(values.subject);
    await page.getByLabel("Message").fill(values.message);
  }

  /** The form's messages of one role (title, then text), written under its button. */
  const messages = (page: Page, role: "status" | "alert") =>
    page.getByRole("form", { name: "Contact form" }).getByRole(role).locator("p").allInnerTexts();

  async function outboxFiles(): Promise<string[]> {
    try {
      return await fs.readdir(path.join(app.server.dataDir, "outbox"));
    } catch {
      return [];
    }
  }

  it("labels every field and uses an email input", async () => {
    const page = await openContact();
    for (const label of ["Full Name", "Email Address", "Subject", "Message"]) {
      expect(await page.getByLabel(label).count(), label).toBe(1);
    }
    expect(await page.getByLabel("Email Address").getAttribute("type")).toBe("email");
    await page.close();
  });

  it("refuses an incomplete form with the product's error under the button and sends nothing", async () => {
    const page = await openContact();
    let posted = 0;
    page.on("request", (request) => {
      if (request.url().endsWith("/api/send-contact-email")) posted += 1;
    });
    await page.getByLabel("Full Name").fill("Ada Obi");
    await page.getByLabel("Email Address").fill("ada@example.com");
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect.poll(() => messages(page, "alert")).toEqual(["Error", "Please fill in all fields."]);
    expect(await messages(page, "status")).toEqual([]);
    // Right under the button, as the first of the form's messages.
    expect(
      await page.evaluate(
        () =>
          document.querySelector('form[data-contact-form] button[type="submit"] ~ [role="alert"]') !== null,
      ),
    ).toBe(true);
    expect(posted).toBe(0);
    // What was typed is kept.
    expect(await page.getByLabel("Full Name").inputValue()).toBe("Ada Obi");
    await page.close();
  });

  it("shows Sending... while sending, then clears the form and the message lands in the outbox", async () => {
    const page = await openContact();
    const before = await outboxFiles();
    // Hold the request briefly so the sending state can be seen.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/api/send-contact-email", async (route) => {
      await held;
      await route.continue();
    });
    await fill(page, {
      name: "Chidi Okeke",
      email: "chidi@example.com",
      subject: "Renewal question",
      message: "Does the yearly plan renew automatically? Marker 7f3a.",
    });
    await page.getByRole("button", { name: "Send Message" }).click();
    const button = page.locator('form button[type="submit"]');
    await expect.poll(() => button.innerText()).toBe("Sending...");
    expect(await button.isDisabled()).toBe(true);
    release();
    await expect
      .poll(() => messages(page, "status"))
      .toEqual(["Message Sent!", "Thank you for contacting us. We'll get back to you within 24 hours."]);
    expect(await messages(page, "alert")).toEqual([]);
    expect(await button.innerText()).toBe("Send Message");
    for (const label of ["Full Name", "Email Address", "Subject", "Message"]) {
      expect(await page.getByLabel(label).inputValue(), `${label} is cleared`).toBe("");
    }
    await expect
      .poll(async () => (await outboxFiles()).filter((file) => !before.includes(file)).length, {
        timeout: 15_000,
      })
      .toBe(1);
    const [file] = (await outboxFiles()).filter((name) => !before.includes(name));
    const eml = await fs.readFile(path.join(app.server.dataDir, "outbox", file!), "utf8");
    expect(eml).toContain("Marker 7f3a");
    expect(eml).toContain("Reply-To: chidi@example.com");
    expect(eml).toContain("To: support@naijalink.example");
    expect(eml).toContain("Subject: [Contact] Renewal question");
    await page.close();
  });

  it.each([
    [
      "the server fails",
      (route: Route) => route.fulfill({ status: 500, json: { error: "Internal error", message: "x" } }),
    ],
    ["the network is down", (route: Route) => route.abort("connectionrefused")],
  ])("keeps the message and shows the product's failure message when %s", async (_case, handler) => {
    const page = await openContact();
    await page.route("**/api/send-contact-email", handler);
    const values = {
      name: "Bola",
      email: "bola@example.com",
      subject: "Help",
      message: "My config will not import.",
    };
    await fill(page, values);
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect
      .poll(() => messages(page, "alert"))
      .toEqual([
        "Error",
        "Failed to send message. Please try again or email us directly at support@naijalink.example.",
      ]);
    expect(await page.getByLabel("Message").inputValue()).toBe(values.message);
    expect(await page.getByRole("button", { name: "Send Message" }).isEnabled()).toBe(true);
    await page.close();
  });

  it("shows the server's reason when it refuses the input", async () => {
    const page = await openContact();
    await fill(page, { name: "Bola", email: "bola@example", subject: "Help", message: "Hi" });
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect
      .poll(() => messages(page, "alert"))
      .toEqual(["Error", expect.stringMatching(/valid email/i)]);
    await page.close();
  });
});
