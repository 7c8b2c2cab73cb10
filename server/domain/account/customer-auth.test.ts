import { describe, expect, it } from "vitest";
import { CUSTOMER_COOKIE_PREFIX, customerOf, type CustomerAuth } from "./customer-auth.ts";

/** A customer auth that answers one signed-in customer and counts how often it was asked. */
function fakeAuth() {
  const calls: Headers[] = [];
  const auth = {
    api: {
      getSession: async ({ headers }: { headers: Headers }) => {
        calls.push(headers);
        return { user: { id: "user-1", email: "Buyer@Example.com", emailVerified: true } };
      },
    },
  } as unknown as CustomerAuth;
  return { auth, calls };
}

const request = (cookie?: string) =>
  new Request("http://localhost:3000/api/verify-payment", { headers: cookie ? { cookie } : {} });

describe("customerOf", () => {
  it("answers null without asking better-auth when the request has no customer session cookie", async () => {
    const { auth, calls } = fakeAuth();
    expect(await customerOf(auth, request())).toBeNull();
    expect(await customerOf(auth, request("naijalink-buyer=abc; other=1"))).toBeNull();
    // The staff instance's cookie is not the customer's.
    expect(await customerOf(auth, request("better-auth.session_token=staff"))).toBeNull();
    expect(calls).toHaveLength(0);
  });

  it.each([
    `${CUSTOMER_COOKIE_PREFIX}.session_token=t`,
    `__Secure-${CUSTOMER_COOKIE_PREFIX}.session_token=t`,
  ])("asks better-auth when the request carries %s", async (cookie) => {
    const { auth, calls } = fakeAuth();
    expect(await customerOf(auth, request(cookie))).toEqual({ id: "user-1", email: "buyer@example.com" });
    expect(calls).toHaveLength(1);
  });
});
