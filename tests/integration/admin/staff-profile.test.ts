// /api/auth/update-user (better-auth's) changes a staff member's name or image and nothing else;
// any other body is a 400 that leaves the account as it was (a null name was a 500).
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { user } from "#server/db/schema/auth.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { createAccount, STAFF_EMAIL } from "../../support/staff.ts";

describe.each(databaseKinds)("a staff member's profile on %s", (kind) => {
  let app: TestApp;
  let cookie: string;
  beforeAll(async () => {
    app = await createTestApp({ kind });
    cookie = (await createAccount(app, STAFF_EMAIL)).cookie;
  }, 240_000);
  afterAll(async () => {
    await app?.close();
  });

  const update = (body: unknown) =>
    app.request("/api/auth/update-user", {
      method: "POST",
      headers: { cookie, origin: app.config.PUBLIC_URL, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const stored = async () => {
    const [row] = await app.services.db
      .select({ name: user.name, image: user.image, email: user.email })
      .from(user)
      .where(eq(user.email, STAFF_EMAIL));
    return row;
  };

  it("refuses a body that is not a name or an image with a 400 that names what to send, and changes nothing", async () => {
    const before = await stored();
    for (const body of [
      { name: null },
      { name: "" },
      { name: "   " },
      { name: 5 },
      { name: { first: "Ada" } },
      { name: "x".repeat(255) },
      { image: 5 },
      { email: "someone-else@example.com" },
      { twoFactorEnabled: false },
      { newDevice: [null, false], command: { before: { published_at: null } }, name: null },
    ]) {
      const response = await update(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(((await response.json()) as { message: string }).message).toContain(
        "Send a name of 1 to 254 characters",
      );
    }
    expect(await stored()).toEqual(before);
  });

  it("changes the name and the image it is given", async () => {
    const response = await update({ name: "Ada Obi", image: null });
    expect(response.status).toBe(200);
    expect(await stored()).toMatchObject({ name: "Ada Obi", image: null, email: STAFF_EMAIL });
  });
});
