// Issue 25: e-mails to an address a caller names are limited per address, whatever the caller's
// IP; a flood is answered like any request, sends at most the limit, and never stops the owner.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADDRESS_MAIL_LIMIT } from "#server/domain/mail/address-limit.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { confirmationLink, confirmWithPassword, queuedEmails, signIn, signUp } from "../../support/staff.ts";

describe.each(databaseKinds)("per-address limits on staff account e-mails on %s", (kind) => {
  let app: TestApp;
  const owner = "flooded@naijalink.example";
  const other = "reset-flooded@naijalink.example";
  beforeAll(async () => {
    app = await createTestApp({ kind, env: { STAFF_ADMINS: `${owner},${other}` } });
  }, 240_000);
  afterAll(async () => {
    await app?.close();
  });

  const sent = async (to: string, kind: string) =>
    (await queuedEmails(app, to)).filter((email) => email.kind === kind).length;

  it("12 verification requests from 12 client addresses send at most the limit, and the owner still confirms and signs in", async () => {
    expect((await signUp(app, owner, undefined, "192.0.2.10")).status).toBe(200);
    const answers = [];
    for (let index = 0; index < 12; index++) {
      const response = await app.request("/api/auth/send-verification-email", {
        json: { email: owner, callbackURL: "/admin/blog" },
        clientIp: `198.51.100.${index + 1}`,
      });
      answers.push({ status: response.status, body: await response.text() });
    }
    // Every request is answered the same way, whether or not a mail went out.
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]!.status).toBe(200);
    expect(await sent(owner, "auth.verify-email")).toBe(ADDRESS_MAIL_LIMIT.limit);
    // The newest link sent still confirms the address; the owner signs in.
    expect((await confirmWithPassword(app, await confirmationLink(app, owner))).status).toBe(200);
    expect((await signIn(app, owner, undefined, "192.0.2.10")).status).toBe(200);
  });

  it("password reset requests for one address from many clients send at most the limit, and the newest link resets", async () => {
    expect((await signUp(app, other, undefined, "192.0.2.11")).status).toBe(200);
    expect((await confirmWithPassword(app, await confirmationLink(app, other))).status).toBe(200);
    for (let index = 0; index < 12; index++) {
      const response = await app.request("/api/auth/request-password-reset", {
        json: { email: other, redirectTo: "/admin/login" },
        clientIp: `203.0.113.${index + 1}`,
      });
      expect(response.status).toBe(200);
    }
    const resets = await sent(other, "auth.password-reset");
    expect(resets).toBeGreaterThan(0);
    expect(resets + (await sent(other, "auth.verify-email"))).toBeLessThanOrEqual(ADDRESS_MAIL_LIMIT.limit);
    const email = (await queuedEmails(app, other))
      .filter((queued) => queued.kind === "auth.password-reset")
      .at(-1)!;
    const link = /https?:\/\/\S+\/api\/auth\/reset-password\/\S+/.exec(email.text)?.[0];
    const token = new URL(link!).pathname.split("/").pop()!;
    const reset = await app.request("/api/auth/reset-password", {
      json: { newPassword: "another long passphrase", token },
    });
    expect(reset.status).toBe(200);
    expect((await signIn(app, other, "another long passphrase", "192.0.2.11")).status).toBe(200);
  });
});
