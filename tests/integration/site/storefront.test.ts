// What a visitor notices on the storefront (issue 17): the tutorial never plays a foreign video,
// names the official WireGuard apps, and Pro Monthly carries both of its badges from docs/product.md §3.2.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../support/app.ts";

/** The HTML of one plan card: from its data-plan-id to the next card's. */
function planCard(html: string, planId: string): string {
  const start = html.indexOf(`data-plan-id="${planId}"`);
  expect(start, `${planId} has a card`).toBeGreaterThan(-1);
  const next = html.indexOf("data-plan-id=", start + 1);
  return html.slice(start, next === -1 ? undefined : next);
}

describe("the storefront", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app?.close());

  it("the tutorial without TUTORIAL_VIDEO_ID shows its poster, a coming-soon note and the three steps, and no video", async () => {
    expect(app.config.TUTORIAL_VIDEO_ID).toBeUndefined();
    const html = await (await app.request("/tutorial")).text();
    expect(html).toContain("Video coming soon");
    expect(html).not.toContain("data-video-id");
    expect(html).not.toContain("dQw4w9WgXcQ");
    expect(html).not.toMatch(/Play video/);
    for (const step of ["Download WireGuard", "Import your config file", "Connect and enjoy"]) {
      expect(html).toContain(step);
    }
  });

  it("the tutorial links each store to the official WireGuard app, as an external link", async () => {
    const html = await (await app.request("/tutorial")).text();
    for (const [store, href] of [
      ["App Store", "https://apps.apple.com/app/wireguard/id1441195209"],
      ["Play Store", "https://play.google.com/store/apps/details?id=com.wireguard.android"],
      ["the WireGuard website", "https://www.wireguard.com/install/"],
    ]) {
      const link = new RegExp(`<a [^>]*href="${href!.replace(/[.?]/g, "\\$&")}"[^>]*>${store}`).exec(html);
      expect(link, `${store} links ${href}`).not.toBeNull();
      expect(link![0]).toContain('rel="noopener noreferrer"');
    }
  });

  it.each(["/", "/pricing", "/get-started"])(
    "%s shows Pro Monthly with both Most Popular and Best Value",
    async (path) => {
      const card = planCard(await (await app.request(path)).text(), "pro-monthly");
      expect(card).toContain("Most Popular");
      expect(card).toContain("Best Value");
    },
  );
});

describe("the tutorial with TUTORIAL_VIDEO_ID", () => {
  it("offers the configured video behind its play button", async () => {
    const app = await createTestApp({ env: { TUTORIAL_VIDEO_ID: "NaijaTest_01" } });
    try {
      const html = await (await app.request("/tutorial")).text();
      expect(html).toContain('data-video-id="NaijaTest_01"');
      expect(html).not.toContain("Video coming soon");
    } finally {
      await app.close();
    }
  });
});
