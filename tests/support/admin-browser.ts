// The staff admin in a browser: signing up and confirming by the e-mailed link.
import fs from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import type { TestServer } from "./app.ts";
import { waitForHydration } from "./browser.ts";
import { PASSWORD } from "./staff.ts";

export { PASSWORD, STAFF_EMAIL } from "./staff.ts";

/** Decodes quoted-printable and returns the confirmation link of the newest .eml to `email`. */
export async function confirmationLinkFromOutbox(server: TestServer, email: string): Promise<string> {
  const outbox = path.join(server.dataDir, "outbox");
  for (let attempt = 0; attempt < 100; attempt++) {
    const names = await fs.readdir(outbox).catch(() => [] as string[]);
    for (const name of names
      .filter((file) => file.endsWith(".eml"))
      .sort()
      .reverse()) {
      const body = (await fs.readFile(path.join(outbox, name), "utf8"))
        .replace(/=\r?\n/g, "")
        .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      if (!body.includes(`To: ${email}`)) continue;
      const match = /https?:\/\/\S+\/admin\/login\?confirm=\S+/.exec(body);
      if (match) return match[0];
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no confirmation e-mail for ${email} in ${outbox}`);
}

export function toast(page: Page, text: string) {
  return page.locator("[data-sonner-toast]").filter({ hasText: text }).first();
}

export async function signUpAndConfirm(page: Page, server: TestServer, email: string) {
  await page.goto(`${server.url}/admin/login`);
  await waitForHydration(page);
  const signUp = page.getByRole("button", { name: "Sign up with the same credentials" });
  expect(await signUp.isDisabled()).toBe(true);
  await page.getByLabel("Email").fill(email);
  expect(await signUp.isDisabled()).toBe(true);
  await page.getByLabel("Password").fill(PASSWORD);
  await signUp.click();
  await toast(page, "Check your email to confirm your account").waitFor();
  // The link asks for the password chosen at sign-up (decision 065), then signs in.
  await page.goto(await confirmationLinkFromOutbox(server, email));
  await waitForHydration(page);
  await page.getByRole("heading", { name: "Confirm Your Account" }).waitFor();
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Confirm" }).click();
}
