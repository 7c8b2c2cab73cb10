import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "#server/db/client.ts";
import { SAMPLE_POSTS } from "#server/domain/blog/seed.ts";
import { PASSWORD, signUpAndConfirm, STAFF_EMAIL, toast } from "../support/admin-browser.ts";
import { insertPosts } from "../support/blog.ts";
import { useBrowserApp, waitForHydration, waitForStaticDocument } from "../support/browser.ts";
import { OTHER_STAFF_EMAIL, totp } from "../support/staff.ts";

describe("the staff blog admin in a real browser", () => {
  const app = useBrowserApp({ ownUrl: true });

  async function postRow() {
    const [row] = await queryRows<{ status: string; published_at: Date | null; deleted_at: Date | null }>(
      app.server.services.db,
      sql`select status, published_at, deleted_at from blog_posts where slug = 'streaming-dstv-from-london'`,
    );
    return row;
  }

  it("signs up, confirms by e-mail, signs in, writes, publishes, unpublishes, deletes and restores a post", async () => {
    const context = await app.browser.newContext();
    const page = await context.newPage();
    await signUpAndConfirm(page, app.server, STAFF_EMAIL);
    await page.waitForURL(`${app.server.url}/admin/blog`);

    // Sign in with the password too, as a returning editor would.
    await page.goto(`${app.server.url}/admin/login`);
    await waitForHydration(page);
    await page.getByLabel("Email").fill(STAFF_EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign In" }).click();
    await toast(page, "Logged in successfully").waitFor();
    await page.waitForURL(`${app.server.url}/admin/blog`);
    await page.getByRole("heading", { name: "Blog Admin" }).waitFor();
    await page.getByText("No posts found").waitFor();

    // The list comes with the page (its loader), so there is no loading state to show (issue 36).
    let listCalls = 0;
    page.on("request", (request) => {
      if (request.url().endsWith("/api/blog-admin/list")) listCalls += 1;
    });
    await page.reload();
    await page.getByText("No posts found").waitFor();
    expect(await page.locator('[data-testid="post-skeleton"]').count()).toBe(0);
    expect(listCalls).toBe(0);

    await page.getByRole("link", { name: "New Post" }).click();
    await page.waitForURL(`${app.server.url}/admin/blog/new`);
    await page.getByRole("heading", { name: "New Post" }).waitFor();
    await waitForHydration(page);
    expect(await page.getByLabel("Author").inputValue()).toBe("NaijaLink Team");
    await page.getByLabel("Title").fill("Streaming DSTV from   London!");
    expect(await page.getByLabel("URL slug").inputValue()).toBe("streaming-dstv-from-london");
    await page
      .getByLabel("Content (markdown)")
      .fill("# Hello abroad\n\n| Plan | Price |\n| --- | --- |\n| Basic | $4.99 |\n\n~~old~~ new");
    const preview = page.getByTestId("post-preview");
    await preview.getByRole("heading", { name: "Hello abroad" }).waitFor();
    expect(await preview.locator("table td").first().innerText()).toBe("Basic");
    expect(await preview.locator("del").innerText()).toBe("old");
    await page.getByRole("button", { name: "Save Draft" }).click();
    await toast(page, "Post created").waitFor();
    await page.waitForURL(`${app.server.url}/admin/blog`);

    const row = page.locator("tbody tr").filter({ hasText: "Streaming DSTV from London!" });
    await row.getByText("streaming-dstv-from-london").waitFor();
    await row.getByText("Draft").waitFor();
    expect((await postRow())!.status).toBe("draft");

    await row.getByRole("button", { name: "Publish" }).click();
    await toast(page, "Post published").waitFor();
    await row.getByText("Published").waitFor();
    const published = (await postRow())!;
    expect(published.status).toBe("published");
    expect(published.published_at).not.toBeNull();
    // The title was typed with repeated spaces; HTML keeps them and the browser collapses them.
    const blog = (await (await fetch(`${app.server.url}/blog`)).text()).replace(/\s+/g, " ");
    expect(blog).toContain('href="/blog/streaming-dstv-from-london"');
    expect(blog).toContain("Streaming DSTV from London!");

    // Tabs filter the list on the client.
    await page.getByRole("tab", { name: "Draft" }).click();
    await page.getByText("No posts found").waitFor();
    await page.getByRole("tab", { name: "Published" }).click();
    await row.waitFor();
    await page.getByRole("tab", { name: "All" }).click();

    await row.getByRole("button", { name: "Unpublish" }).click();
    await toast(page, "Post unpublished").waitFor();
    await row.getByText("Draft").waitFor();
    expect((await postRow())!.status).toBe("draft");

    await row.getByRole("button", { name: "Delete" }).click();
    await toast(page, "Post deleted").waitFor();
    await row.getByText("Deleted").waitFor();
    expect(await row.getByRole("button", { name: "Publish" }).isDisabled()).toBe(true);
    expect((await postRow())!.deleted_at).not.toBeNull();
    await page.getByRole("tab", { name: "Draft" }).click();
    await page.getByText("No posts found").waitFor();
    await page.getByRole("tab", { name: "Deleted" }).click();
    await row.waitFor();

    await row.getByRole("button", { name: "Restore" }).click();
    await toast(page, "Post restored").waitFor();
    await page.getByText("No posts found").waitFor();
    expect((await postRow())!.deleted_at).toBeNull();

    // The editor loads the post and saves changes back.
    await page.getByRole("tab", { name: "All" }).click();
    await row.getByRole("link", { name: "Edit" }).click();
    await page.getByRole("heading", { name: "Edit Post" }).waitFor();
    await waitForHydration(page);
    await page.getByLabel("Title").fill("Streaming DSTV from London, updated");
    expect(await page.getByLabel("URL slug").inputValue()).toBe("streaming-dstv-from-london");
    await page.getByLabel("Status").selectOption("published");
    await page.getByRole("button", { name: "Save and Publish" }).click();
    await toast(page, "Post updated").waitFor();
    await page.waitForURL(`${app.server.url}/admin/blog`);
    expect((await postRow())!.status).toBe("published");

    // A post as a fresh install ships it is labelled Sample here, and only here (decision 084).
    const sample = SAMPLE_POSTS[0]!;
    await insertPosts(app.server.services.db, [
      { title: sample.title, slug: sample.slug, content: sample.content },
    ]);
    await page.reload();
    const sampleRow = page.locator("tbody tr").filter({ hasText: sample.title });
    await sampleRow.getByText("Sample", { exact: true }).waitFor();
    expect(await row.getByText("Sample", { exact: true }).count()).toBe(0);
    await context.close();
  }, 120_000);

  it("shows the server's message when a save is refused, badges a future-dated post Scheduled and links a live one", async () => {
    await insertPosts(app.server.services.db, [
      {
        title: "Showmax prices next month",
        slug: "showmax-next-month",
        publishedAt: new Date(Date.now() + 3 * 86_400_000),
      },
      { title: "Live on the blog", slug: "live-on-the-blog" },
    ]);
    const context = await app.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signUpAndConfirm(page, app.server, OTHER_STAFF_EMAIL);
    await page.waitForURL(`${app.server.url}/admin/blog`);
    await waitForHydration(page);
    const posts = page.getByRole("list", { name: "Posts" });
    const scheduled = posts.getByRole("listitem").filter({ hasText: "Showmax prices next month" });
    const live = posts.getByRole("listitem").filter({ hasText: "Live on the blog" });
    await scheduled.getByText("Scheduled", { exact: true }).waitFor();
    await live.getByText("Published", { exact: true }).first().waitFor();
    // Only a post readers can see now is linked.
    expect(await scheduled.getByRole("link", { name: "View post" }).count()).toBe(0);
    expect(await live.getByRole("link", { name: "View post" }).getAttribute("href")).toBe(
      "/blog/live-on-the-blog",
    );
    await page.getByRole("tab", { name: "Scheduled" }).click();
    await scheduled.waitFor();
    expect(await posts.getByRole("listitem").count()).toBe(1);
    // The four tabs of docs/product.md §9.3 stay, Scheduled beside them.
    expect(await page.getByRole("tab").allInnerTexts()).toEqual([
      "All",
      "Draft",
      "Published",
      "Scheduled",
      "Deleted",
    ]);

    await page.getByRole("link", { name: "New Post" }).click();
    await page.getByRole("heading", { name: "New Post" }).waitFor();
    await waitForHydration(page);
    await page.getByLabel("Title").fill("Live on the blog");
    await page.getByRole("button", { name: "Save Draft" }).click();
    await page
      .getByRole("alert")
      .getByText('A post with the slug "live-on-the-blog" already exists. Choose another URL slug.')
      .waitFor();
    await page.getByLabel("Title").fill("");
    await page.getByRole("button", { name: "Save Draft" }).click();
    await page.getByRole("alert").getByText("title: must not be empty").waitFor();
    expect(new URL(page.url()).pathname).toBe("/admin/blog/new");

    await page.goto(`${app.server.url}/admin/blog`);
    await waitForHydration(page);
    await live.getByRole("link", { name: "Edit" }).click();
    await page.getByRole("heading", { name: "Edit Post" }).waitFor();
    expect(await page.getByRole("link", { name: "View post" }).getAttribute("href")).toBe(
      "/blog/live-on-the-blog",
    );
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await context.close();
  });

  it("sends a signed-in user who is not staff to / with Access Denied, and the editor sends them home silently", async () => {
    const context = await app.browser.newContext();
    const page = await context.newPage();
    await signUpAndConfirm(page, app.server, "reader@example.com");
    // Confirming signs the user in and leads to /admin/blog, which refuses them.
    await page.waitForURL(`${app.server.url}/`);
    await waitForStaticDocument(page);
    const denied = ["Access Denied", "You don't have permission to access this page."];
    expect(await page.getByRole("alert").locator("p").allInnerTexts()).toEqual(denied);
    // Shown once: the flash is gone on the next visit.
    await page.reload();
    await waitForHydration(page);
    expect(await page.getByRole("alert").count()).toBe(0);

    // Signing in on the (hydrated) login page leads to the list by a client-side navigation:
    // its redirect to the static home page still carries the message.
    await page.goto(`${app.server.url}/admin/login`);
    await waitForHydration(page);
    await page.getByLabel("Email").fill("reader@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign In" }).click();
    await page.waitForURL(`${app.server.url}/`);
    await waitForStaticDocument(page);
    expect(await page.getByRole("alert").locator("p").allInnerTexts()).toEqual(denied);

    await page.goto(`${app.server.url}/admin/blog/new`);
    await page.waitForURL(`${app.server.url}/`);
    await waitForHydration(page);
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.locator("[data-sonner-toast]").count()).toBe(0);

    // The server refuses the API too, whatever the page does.
    const status = await page.evaluate(async () => {
      const response = await fetch("/api/blog-admin/list", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      return response.status;
    });
    expect(status).toBe(403);
    await context.close();
  });

  it("lets staff turn on two-factor with a QR code and then asks for a code at sign-in", async () => {
    const context = await app.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.server.url}/admin/login`);
    await waitForHydration(page);
    await page.getByLabel("Email").fill(STAFF_EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign In" }).click();
    await page.waitForURL(`${app.server.url}/admin/blog`);
    await waitForHydration(page);

    await page.getByRole("button", { name: "Set up two-factor" }).click();
    await page.getByLabel("Confirm your password").fill(PASSWORD);
    await page.getByRole("button", { name: "Continue" }).click();
    const qr = page.getByRole("img", { name: "QR code for your authenticator app" });
    await qr.waitFor();
    expect(await qr.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(
      true,
    );
    const secret = await page.getByTestId("totp-secret").innerText();
    await page.getByLabel("Authentication code").fill(totp(secret));
    await page.getByRole("button", { name: "Turn on" }).click();
    await toast(page, "Two-factor authentication is on").waitFor();
    const codes = await page.getByTestId("backup-codes").locator("li").allInnerTexts();
    expect(codes.length).toBeGreaterThanOrEqual(8);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${app.server.url}/admin/login`);
    await waitForHydration(page);
    await page.getByLabel("Email").fill(STAFF_EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign In" }).click();
    await page.getByRole("heading", { name: "Two-Factor Check" }).waitFor();
    await page.getByRole("button", { name: "Use a backup code" }).click();
    await page.getByLabel("Backup code").fill(codes[0]!);
    await page.getByRole("button", { name: "Verify" }).click();
    await toast(page, "Logged in successfully").waitFor();
    await page.waitForURL(`${app.server.url}/admin/blog`);
    await page.getByRole("heading", { name: "Blog Admin" }).waitFor();
    await context.close();
  });

  it("shows the provider's message when signing in fails", async () => {
    const page = await app.browser.newPage();
    await page.goto(`${app.server.url}/admin/login`);
    await waitForHydration(page);
    await page.getByLabel("Email").fill("nobody@example.com");
    await page.getByLabel("Password").fill("wrong password");
    await page.route("**/api/auth/sign-in/email", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await route.continue();
    });
    await page.getByRole("button", { name: "Sign In" }).click();
    await page.getByRole("button", { name: "Loading..." }).waitFor();
    expect(await page.getByRole("button", { name: "Sign up with the same credentials" }).isDisabled()).toBe(
      true,
    );
    await toast(page, "Invalid email or password").waitFor();
    expect(page.url()).toBe(`${app.server.url}/admin/login`);
    await page.close();
  }, 30_000);
});
