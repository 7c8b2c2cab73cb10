import { it } from "vitest";
import { createTestApp } from "../support/app.ts";
import { insertPosts, visibilityFixture, postLinks } from "../support/blog.ts";
it("dump", async () => {
  const app = await createTestApp();
  const { visible, hidden } = visibilityFixture();
  await insertPosts(app.services.db, [...hidden, ...visible]);
  const r = await app.request("/blog");
  const html = await r.text();
  console.log(r.status, postLinks(html), html.indexOf('<main id="main"'), html.indexOf("</main>"));
  console.log(html.slice(html.indexOf("<main"), html.indexOf("<main") + 1500));
  await app.close();
});
