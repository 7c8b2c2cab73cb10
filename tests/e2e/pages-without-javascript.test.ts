// Issue 36: every page works as plain HTML first. Each test runs twice, in Chromium with
// JavaScript turned off (the browser posts the forms itself and follows plain links) and with it
// on (the same pages, enhanced), against one app process for the file.
import fs from "node:fs/promises";
import path from "node:path";
import { and, eq, isNull } from "drizzle-orm";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { PLANS, type Plan } from "#core/plans.ts";
import { blogPosts, contactMessages, devices, subscriptions } from "#server/db/schema/index.ts";
import { signInLinkFromOutboxFiles } from "../support/account.ts";
import { confirmationLinkFromOutbox, PASSWORD, STAFF_EMAIL } from "../support/admin-browser.ts";
import { useBrowserApp, waitForHydration, waitForStaticDocument } from "../support/browser.ts";
import { OTHER_STAFF_EMAIL } from "../support/staff.ts";
import { expectCompleteWireGuardConfig, payOnCheckout } from "../support/purchase-browser.ts";

/** Elements of `<main>` (outside scroll regions) wider than their box or sticking out of the viewport. */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const scrolls = (element: Element) => {
      for (let at = element.parentElement; at && at !== document.body; at = at.parentElement) {
        if (/(auto|scroll|hidden)/.test(getComputedStyle(at).overflowX)) return true;
      }
      return false;
    };
    const name = (element: Element) =>
      `${element.tagName.toLowerCase()} "${(element.textContent ?? "").trim().slice(0, 40)}"`;
    for (const element of document.querySelectorAll("main *")) {
      if (scrolls(element)) continue;
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      if (box.right > window.innerWidth + 0.5 || box.left < -0.5)
        found.push(`${name(element)} leaves the viewport`);
      if (
        (element.matches("a, button") || element.closest("a, button") === element) &&
        element.scrollWidth > element.clientWidth + 1
      )
        found.push(`${name(element)} overflows its box`);
    }
    if (document.documentElement.scrollWidth > window.innerWidth) found.push("the page scrolls sideways");
    return found;
  });
}

async function expectNoOverflow(page: Page) {
  const size = page.viewportSize()!;
  for (const width of [360, 390]) {
    await page.setViewportSize({ width, height: 800 });
    expect(await overflowing(page), `at ${width} px`).toEqual([]);
  }
  await page.setViewportSize(size);
}

async function saveDownload(page: Page, click: () => Promise<void>) {
  const [download] = await Promise.all([page.waitForEvent("download", { timeout: 15_000 }), click()]);
  return { name: download.suggestedFilename(), text: await fs.readFile((await download.path())!, "utf8") };
}

describe("every page as plain HTML first, enhanced by JavaScript", () => {
  const app = useBrowserApp({ ownUrl: true });
  const contexts: BrowserContext[] = [];

  afterAll(async () => {
    for (const context of contexts) await context.close();
  });

  describe.each([
    { js: false, label: "without JavaScript" },
    { js: true, label: "with JavaScript" },
  ])("pages $label", ({ js, label }) => {
    async function newPage(options: { width?: number } = {}): Promise<Page> {
      const context = await app.browser.newContext({
        javaScriptEnabled: js,
        acceptDownloads: true,
        ...(options.width ? { viewport: { width: options.width, height: 800 } } : {}),
      });
      contexts.push(context);
      return context.newPage();
    }

    /** A page's document is loaded and, with JavaScript, hydrated (or enhanced, for a static page). */
    async function settled(page: Page, kind: "hydrated" | "static" = "hydrated") {
      await page.waitForLoadState("load");
      if (!js) {
        expect(await page.locator("html[data-hydrated]").count()).toBe(0);
        return;
      }
      await (kind === "static" ? waitForStaticDocument(page) : waitForHydration(page));
    }

    const buyer = (plan: Plan) => `${js ? "js" : "nojs"}-${plan.id}@example.com`;

    it("sends a contact message that is stored and e-mailed, its text never in an address", async () => {
      const page = await newPage();
      const addresses: string[] = [];
      page.on("request", (request) => addresses.push(request.url()));
      page.on("framenavigated", (frame) => addresses.push(frame.url()));
      await page.goto(`${app.server.url}/contact`);
      await settled(page, "static");
      const form = page.getByRole("form", { name: "Contact form" });

      if (!js) {
        // A refusal comes back under the button, and what was typed is still there.
        await page.getByLabel("Full Name").fill("Ada Obi");
        await form.getByRole("button", { name: "Send Message" }).click();
        await form.getByRole("alert").filter({ hasText: "Please fill in all fields." }).waitFor();
        expect(page.url()).toBe(`${app.server.url}/contact`);
        expect(await page.getByLabel("Full Name").inputValue()).toBe("Ada Obi");
      }

      const marker = `Marker-${js ? "js" : "nojs"}-${Date.now().toString(36)}`;
      await page.getByLabel("Full Name").fill("Ada Obi");
      await page.getByLabel("Email Address").fill(`ada-${js}@example.com`);
      await page.getByLabel("Subject").fill(`Renewal ${label}`);
      await page.getByLabel("Message").fill(`Does the yearly plan renew? ${marker}`);
      await form.getByRole("button", { name: "Send Message" }).click();
      await page.getByRole("status").filter({ hasText: "Message Sent!" }).waitFor();
      expect(await page.getByRole("status").filter({ hasText: "Message Sent!" }).innerText()).toContain(
        "We'll get back to you within 24 hours.",
      );
      expect(page.url()).toBe(`${app.server.url}/contact`);

      const rows = await app.server.services.db
        .select({ message: contactMessages.message, email: contactMessages.email })
        .from(contactMessages);
      expect(rows.filter((row) => row.message.includes(marker))).toEqual([
        { message: `Does the yearly plan renew? ${marker}`, email: `ada-${js}@example.com` },
      ]);
      const outbox = path.join(app.server.dataDir, "outbox");
      await expect
        .poll(
          async () => {
            const files = await fs.readdir(outbox).catch(() => [] as string[]);
            const texts = await Promise.all(
              files.map((file) => fs.readFile(path.join(outbox, file), "utf8")),
            );
            return texts.filter((text) => text.includes(marker)).length;
          },
          { timeout: 15_000 },
        )
        .toBe(1);
      expect(addresses.length).toBeGreaterThan(0);
      expect(addresses.filter((address) => address.includes(marker) || address.includes("renew"))).toEqual(
        [],
      );
    });

    /** From the plan's button (on /, /pricing or /get-started) to the success page's config. */
    async function buyToConfig(
      page: Page,
      plan: Plan,
      start: "home" | "pricing" | "get-started",
      email = buyer(plan),
    ) {
      if (start === "get-started") {
        await page.goto(`${app.server.url}/get-started`);
        await settled(page);
        await page.getByRole("radio", { name: plan.name }).check();
        await page.getByRole("button", { name: "Continue to Details" }).click();
      } else {
        await page.goto(`${app.server.url}${start === "home" ? "/" : "/pricing"}`);
        await settled(page, "static");
        await page
          .locator(`[data-plan-id="${plan.id}"]`)
          .getByRole("button", { name: start === "home" ? "Get It Now" : "Get Started" })
          .click();
      }
      await page.waitForURL(`${app.server.url}/get-started/details`);
      await settled(page);
      await page.getByTestId("plan-summary").getByText(plan.name, { exact: true }).waitFor();
      await page.getByLabel("First Name").fill("Ada");
      await page.getByLabel("Last Name").fill("Obi");
      await page.getByLabel("Email Address").fill(email);
      await page.getByRole("button", { name: "Continue to Payment" }).click();
      await page.waitForURL(`${app.server.url}/get-started/payment`);
      await settled(page);
      await page.getByTestId("order-summary").getByText(plan.name, { exact: true }).waitFor();
      if (!js) {
        // Unticked terms: the server refuses and says why, next to the button.
        await page.getByRole("button", { name: "Complete Payment" }).click();
        await page.getByRole("alert").filter({ hasText: "Terms Required" }).waitFor();
      }
      await page.getByRole("checkbox").check();
      await page.getByRole("button", { name: "Complete Payment" }).click();
      await page.waitForURL(/\/checkout\/cs_test_/);
      await settled(page);
      await payOnCheckout(page, "4242 4242 4242 4242");
      await page.waitForURL(/\/payment-success\?session_id=cs_test_/);
      // Configuration Pending reloads itself (or, with JavaScript, polls) until the config is ready.
      await page.getByRole("heading", { name: "Payment Successful!" }).waitFor({ timeout: 60_000 });
      await settled(page);
    }

    // One test per plan (each its own time budget), entering the purchase from each place.
    const starts = ["home", "pricing", "get-started", "pricing"] as const;
    it.each(PLANS.map((plan, at) => ({ plan, start: starts[at]! })))(
      "buys $plan.name to a config, entering at $start, and downloads it from the success page",
      async ({ plan, start }) => {
        const page = await newPage();
        await buyToConfig(page, plan, start);
        const card = page.getByTestId("config-1");
        const saved = await saveDownload(page, () =>
          card.getByRole("button", { name: "Download .conf File" }).click(),
        );
        expect(saved.name).toBe("NaijaLink1.conf");
        expectCompleteWireGuardConfig(saved.text);
        const [subscription] = await app.server.services.db
          .select({ planType: subscriptions.planType, status: subscriptions.status })
          .from(subscriptions)
          .where(eq(subscriptions.customerEmail, buyer(plan)));
        expect(subscription, plan.id).toMatchObject({ planType: plan.planType });
        if (plan.id === "pro-monthly") {
          // The port-443 offer's button keeps its file name inside its box on a phone.
          await card.getByTestId("alternate-port-offer").waitFor();
          await expectNoOverflow(page);
        }
        await page.close();
      },
    );

    it("adds another device on the success page for the browser that paid, and for no other", async () => {
      const plan = PLANS.find((candidate) => candidate.id === "pro-yearly")!;
      const email = `${js ? "js" : "nojs"}-more-devices@example.com`;
      const page = await newPage();
      await buyToConfig(page, plan, "get-started", email);
      const liveDevices = async () =>
        (
          await app.server.services.db
            .select({ slot: devices.slot })
            .from(devices)
            .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
            .where(and(eq(subscriptions.customerEmail, email), isNull(devices.revokedAt)))
        ).map((device) => device.slot);
      expect(await liveDevices()).toEqual([1]);

      // Another browser with the link: the server refuses it, as it refuses the script's request.
      const elsewhere = await newPage();
      const refused = await elsewhere.request.post(page.url(), { form: { intent: "add-device" } });
      expect(refused.status()).toBe(403);
      expect(await liveDevices()).toEqual([1]);

      const requests: string[] = [];
      page.on("request", (request) =>
        requests.push(`${request.method()} ${new URL(request.url()).pathname} ${request.resourceType()}`),
      );
      if (js) await page.evaluate(() => document.documentElement.setAttribute("data-same-document", ""));
      await page.getByRole("button", { name: "Add another device" }).click();
      const card = page.getByTestId("config-2");
      await card.waitFor();
      expect((await liveDevices()).sort()).toEqual([1, 2]);
      if (js) {
        // Enhanced: the script asked verify-payment; the document was never posted or reloaded.
        expect(requests).toContain("POST /api/verify-payment fetch");
        expect(requests.filter((request) => request.startsWith("POST /payment-success"))).toEqual([]);
        expect(await page.locator("html[data-same-document]").count()).toBe(1);
      } else {
        expect(requests).toContain("POST /payment-success document");
        expect(await page.getByTestId("success-notice").innerText()).toContain(
          "The config for device 2 is ready.",
        );
        expect(page.url()).toMatch(/\/payment-success\?session_id=cs_test_/);
      }
      expect(await page.getByTestId("devices-in-use").innerText()).toBe("2 of 3 in use");
      const saved = await saveDownload(page, () =>
        card.getByRole("button", { name: "Download .conf File" }).click(),
      );
      expect(saved.name).toBe("NaijaLink2.conf");
      expectCompleteWireGuardConfig(saved.text);
    });

    it("downloads a config and shows its QR code on /account; a revoked link answers a browser with a page", async () => {
      const email = buyer(PLANS.find((plan) => plan.id === "pro-monthly")!);
      const page = await newPage();
      await page.goto(`${app.server.url}/account`);
      await settled(page);
      await page.getByLabel("E-mail address").fill(email);
      await page.getByRole("button", { name: "Email me a sign-in link" }).click();
      await page.getByTestId("sign-in-sent").waitFor();
      await page.goto(await signInLinkFromOutboxFiles(app.server.dataDir, email));
      await settled(page);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.waitForURL(`${app.server.url}/account`);
      await settled(page);

      const device = page.getByTestId("device-1");
      const download = device.getByRole("button", { name: "Download .conf" }).first();
      const link = await download.getAttribute("href");
      expect(link).toMatch(/^\/api\/configs\/[A-Za-z0-9_-]+$/);
      const saved = await saveDownload(page, () => download.click());
      expect(saved.name).toBe("NaijaLink1.conf");
      expectCompleteWireGuardConfig(saved.text);
      await expectNoOverflow(page);

      const qr = device.getByRole("button", { name: "Show QR Code" });
      if (js) {
        await qr.click();
        const image = device.getByRole("img", { name: "QR code of the WireGuard config for device 1" });
        expect(await image.getAttribute("src")).toMatch(/^data:image\/svg\+xml/);
      } else {
        // Without JavaScript the button is a link to the QR image itself.
        const [response] = await Promise.all([page.waitForEvent("response"), qr.click()]);
        await page.waitForURL(/\/api\/configs\/[A-Za-z0-9_-]+\/qr\.svg$/);
        expect(response.status()).toBe(200);
        expect(response.headers()["content-type"]).toBe("image/svg+xml");
        expect(await response.text()).toContain("<svg");
        await page.goto(`${app.server.url}/account`);
      }

      await device.getByRole("button", { name: "Revoke" }).click();
      await device.getByRole("button", { name: "Revoke device" }).click();
      await expect
        .poll(async () => {
          const live = await app.server.services.db
            .select({ id: devices.id })
            .from(devices)
            .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
            .where(and(eq(subscriptions.customerEmail, email), isNull(devices.revokedAt)));
          return live.length;
        })
        .toBe(0);

      // The old link in a browser: a page that says why and leads to the account, with 410.
      const gone = await page.goto(`${app.server.url}${link}`);
      expect(gone!.status()).toBe(410);
      expect(gone!.headers()["content-type"]).toMatch(/^text\/html/);
      await page.getByRole("heading", { name: "This config link no longer works" }).waitFor();
      expect(await page.getByText("This config has been revoked.").count()).toBe(1);
      expect(await page.getByRole("link", { name: "Go to your account" }).getAttribute("href")).toBe(
        "/account",
      );
      // An API client still gets JSON.
      const api = await page.request.get(`${app.server.url}${link}`, {
        headers: { accept: "application/json" },
      });
      expect(api.status()).toBe(410);
      expect(await api.json()).toEqual({ error: "Gone", message: "This config has been revoked." });
    });

    it("lists the staff blog's posts from the page, and the editor creates a post and shows a refusal", async () => {
      const email = js ? OTHER_STAFF_EMAIL : STAFF_EMAIL;
      const page = await newPage();
      await page.goto(`${app.server.url}/admin/login`);
      await settled(page);
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign up with the same credentials" }).click();
      await page.getByText("Check your email to confirm your account").first().waitFor();
      await page.goto(await confirmationLinkFromOutbox(app.server, email));
      await settled(page);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Confirm" }).click();
      await page.waitForURL(`${app.server.url}/admin/blog`);
      await settled(page);

      const title = `Streaming abroad ${label}`;
      await page.getByRole("link", { name: "New Post" }).click();
      await page.waitForURL(`${app.server.url}/admin/blog/new`);
      await settled(page);
      // No title: refused, with the server's words, and what was typed is kept.
      await page.getByLabel("URL slug").fill(`streaming-abroad-${js ? "js" : "nojs"}`);
      await page.getByLabel("Content (markdown)").fill("# Hello abroad");
      await page.getByRole("button", { name: "Save Draft" }).click();
      await page.getByRole("alert").filter({ hasText: /title/i }).waitFor();
      expect(await page.getByLabel("Content (markdown)").inputValue()).toBe("# Hello abroad");
      expect(
        await app.server.services.db
          .select({ id: blogPosts.id })
          .from(blogPosts)
          .where(eq(blogPosts.title, title)),
      ).toEqual([]);

      await page.getByLabel("Title").fill(title);
      await page.getByRole("button", { name: "Save Draft" }).click();
      await page.waitForURL(`${app.server.url}/admin/blog`);
      await settled(page);
      await page.getByRole("row").filter({ hasText: title }).waitFor();
      const [row] = await app.server.services.db
        .select({ slug: blogPosts.slug, status: blogPosts.status })
        .from(blogPosts)
        .where(eq(blogPosts.title, title));
      expect(row).toEqual({ slug: `streaming-abroad-${js ? "js" : "nojs"}`, status: "draft" });

      // The list is in the page the server sent, not fetched afterwards.
      const html = await (await page.request.get(`${app.server.url}/admin/blog`)).text();
      expect(html).toContain(title);

      // The filter tabs: a draft is under Draft, not under Published, and under All again.
      const requests: string[] = [];
      page.on("request", (request) =>
        requests.push(`${request.method()} ${new URL(request.url()).pathname} ${request.resourceType()}`),
      );
      if (js) await page.evaluate(() => document.documentElement.setAttribute("data-same-document", ""));
      const post = page.getByRole("row").filter({ hasText: title });
      await page.getByRole("tab", { name: "Published" }).click();
      await page.waitForURL(`${app.server.url}/admin/blog?tab=published`);
      await expect.poll(() => post.count()).toBe(0);
      expect(await page.getByRole("tab", { name: "Published" }).getAttribute("aria-selected")).toBe("true");
      await page.getByRole("tab", { name: "Draft" }).click();
      await page.waitForURL(`${app.server.url}/admin/blog?tab=draft`);
      await post.waitFor();
      await page.getByRole("tab", { name: "All" }).click();
      await page.waitForURL(`${app.server.url}/admin/blog`);
      await post.waitFor();
      const documents = requests.filter((request) => request.endsWith("document"));
      if (js) {
        // Enhanced: the tabs filter the list already loaded, in the same document.
        expect(documents).toEqual([]);
        expect(await page.locator("html[data-same-document]").count()).toBe(1);
      } else {
        expect(documents).toEqual([
          "GET /admin/blog document",
          "GET /admin/blog document",
          "GET /admin/blog document",
        ]);
      }
    });

    it("opens the phone menu at 390 px", async () => {
      const page = await newPage({ width: 390 });
      await page.goto(`${app.server.url}/pricing`);
      await settled(page, "static");
      const menu = js ? page.locator("#mobile-menu") : page.getByTestId("mobile-menu-no-js");
      const contact = menu.getByRole("link", { name: "Contact" });
      expect(await contact.isVisible()).toBe(false);
      if (js) {
        await page.getByRole("button", { name: "Open menu" }).click();
      } else {
        // The scripted button would do nothing: it is hidden, and the disclosure stands in for it.
        expect(await page.getByRole("button", { name: "Open menu" }).isVisible()).toBe(false);
        await menu.locator("summary").click();
      }
      await contact.waitFor({ state: "visible" });
      await Promise.all([page.waitForURL(`${app.server.url}/contact`), contact.click()]);
    });
  });

  it("keeps the terms box a buyer ticked before the script loaded, and pays with it once it has", async () => {
    const context = await app.browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${app.server.url}/get-started`);
    await waitForHydration(page);
    await page.getByRole("radio", { name: "Basic Monthly", exact: true }).check();
    await page.getByRole("button", { name: "Continue to Details" }).click();
    await page.waitForURL(`${app.server.url}/get-started/details`);
    await page.getByLabel("First Name").fill("Ada");
    await page.getByLabel("Last Name").fill("Obi");
    await page.getByLabel("Email Address").fill("early-tick@example.com");
    await page.getByRole("button", { name: "Continue to Payment" }).click();
    await page.waitForURL(`${app.server.url}/get-started/payment`);

    // The payment step's document again, its scripts held back until the box is ticked.
    let releaseScripts!: () => void;
    const scriptsReleased = new Promise<void>((resolve) => (releaseScripts = resolve));
    await page.route(/\/assets\/.*\.js$/, async (route) => {
      await scriptsReleased;
      await route.continue();
    });
    await page.goto(`${app.server.url}/get-started/payment`, { waitUntil: "commit" });
    await page.getByRole("checkbox").check();
    releaseScripts();
    await waitForHydration(page);
    expect(await page.getByRole("checkbox").isChecked()).toBe(true);
    await page.getByRole("button", { name: "Complete Payment" }).click();
    await page.waitForURL(/\/checkout\/cs_test_/);
  });

  it("keeps the details a buyer typed before the script loaded, and carries them to the payment step", async () => {
    const context = await app.browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${app.server.url}/get-started`);
    await waitForHydration(page);
    await page.getByRole("radio", { name: "Pro Monthly", exact: true }).check();
    await page.getByRole("button", { name: "Continue to Details" }).click();
    await page.waitForURL(`${app.server.url}/get-started/details`);

    // The details step's document again, its scripts held back while the buyer types.
    let releaseScripts!: () => void;
    const scriptsReleased = new Promise<void>((resolve) => (releaseScripts = resolve));
    await page.route(/\/assets\/.*\.js$/, async (route) => {
      await scriptsReleased;
      await route.continue();
    });
    await page.goto(`${app.server.url}/get-started/details`, { waitUntil: "commit" });
    await page.getByLabel("First Name").fill("Early");
    await page.getByLabel("Last Name").fill("Typist");
    await page.getByLabel("Email Address").fill("early-typist@example.com");
    releaseScripts();
    await waitForHydration(page);
    expect(await page.getByLabel("First Name").inputValue()).toBe("Early");
    expect(await page.getByLabel("Email Address").inputValue()).toBe("early-typist@example.com");
    await page.getByRole("button", { name: "Continue to Payment" }).click();
    await page.waitForURL(`${app.server.url}/get-started/payment`);
    await page.getByRole("checkbox").check();
    await page.getByRole("button", { name: "Complete Payment" }).click();
    await page.waitForURL(/\/checkout\/cs_test_/);
    expect(await page.getByText("early-typist@example.com").count()).toBeGreaterThan(0);
  });
});
