// The generated inputs of the fuzz test (tests/integration/security/fuzz.test.ts): hostile strings,
// numbers, nesting and wrong types as fast-check arbitraries, and well-formed bodies of the
// endpoints issue 25 found answering 500, to make one field of hostile.
import fc from "fast-check";
import { STAFF_EMAIL } from "./staff.ts";

const HOSTILE_TEXT = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "\udbff\udbff",
  "\u202e",
  "1.1.1.1\nPostUp = touch /tmp/x\n#",
  "'; drop table subscriptions; --",
  "<script>alert(1)</script>",
  "../../etc/passwd",
  "%00",
  "x".repeat(10_000),
  "é".repeat(10_000),
  "",
];
const oddUnit = fc.oneof(
  fc.constantFrom("\u0000", "\ud800", "\udc00", "\u202e"),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
);

export function arbitraries(ids: string[]) {
  const text = fc.oneof(
    fc.constantFrom(...HOSTILE_TEXT, ...ids),
    fc.string({ maxLength: 30 }),
    fc.string({ unit: oddUnit, maxLength: 20 }),
    fc.emailAddress(),
  );
  const number = fc.oneof(
    fc.integer(),
    fc.double(),
    fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), 4_102_444_801, 0.5, -1),
  );
  const leaf = fc.oneof(text, number, fc.boolean(), fc.constant(null));
  const field = fc.oneof(
    fc.constantFrom(
      "email",
      "password",
      "name",
      "sessionId",
      "planId",
      "customerEmail",
      "newDevice",
      "subscriptionId",
      "deviceId",
      "serverId",
      "reason",
      "days",
      "q",
      "page",
      "status",
      "id",
      "title",
      "slug",
      "content",
      "author",
      "published_at",
      "restore",
      "endpoint",
      "ipv4",
      "ipv6",
      "dns",
      "region",
      "publicKey",
      "token",
      "newPassword",
      "callbackURL",
      "message",
      "subject",
      "when",
      "limit",
      "before",
      "command",
      "server",
      "addresses",
      "peers",
      "exitAddresses",
      "appliedVersion",
      "code",
      "cardNumber",
      "expiry",
      "cvc",
      "intent",
    ),
    text,
  );
  const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc.array(tie("node"), { maxLength: 4 }),
      fc.dictionary(field, tie("node"), { maxKeys: 5 }),
    ),
  })).node;
  const deep = fc.integer({ min: 20, max: 400 }).map((depth) => JSON.stringify(nest(depth)));
  const json = fc.oneof(
    { weight: 5, arbitrary: fc.dictionary(field, value, { maxKeys: 8 }).map((body) => JSON.stringify(body)) },
    { weight: 1, arbitrary: value.map((body) => JSON.stringify(body) ?? "null") },
    { weight: 1, arbitrary: deep },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"days": 1e400, "page": 123456789012345678901234567890}',
        '{"limit": -1e999}',
        `{"q": "${"\\ud800".repeat(3)}"}`,
        "[".repeat(5000) + "]".repeat(5000),
        '{"a":',
        "\u0000",
        "",
      ),
    },
  );
  /** A base body with one field's value replaced by a hostile one (or one hostile key added). */
  const mutated = (base: Record<string, unknown>) =>
    fc
      .tuple(fc.constantFrom(...Object.keys(base), "extra"), fc.oneof(value, text), fc.boolean())
      .map(([key, hostile, asKey]) =>
        JSON.stringify(
          asKey && typeof hostile === "string" ? { ...base, [hostile]: 1 } : { ...base, [key]: hostile },
        ),
      );
  const pairs = fc.array(fc.tuple(field, text), { maxLength: 6 });
  const form = pairs.map((entries) =>
    entries.map(([key, item]) => `${encode(key)}=${encode(item)}`).join("&"),
  );
  return { json, form, query: form, mutated };
}

/**
 * Well-formed bodies of the endpoints the issue found answering 500: each run also sends one with a
 * field (or a new key) made hostile, so the hostile value passes the other checks and reaches the
 * code behind them. Endpoints without one are fuzzed with generated bodies alone.
 */
export const BASE_BODIES: Record<string, (fixture: Fixture) => Record<string, unknown>> = {
  "/api/send-contact-email": () => ({
    name: "Ada",
    email: "ada@example.com",
    subject: "Hello",
    message: "Hi",
  }),
  "/api/create-checkout": () => ({ planId: "unlock", customerEmail: "ada@example.com" }),
  "/api/verify-payment": (fixture) => ({ sessionId: fixture.sessionId }),
  "/api/auth/sign-in/email": () => ({ email: STAFF_EMAIL, password: "wrong password here" }),
  "/api/auth/sign-up/email": () => ({
    email: "new-fuzz@example.com",
    password: "long enough password",
    name: "F",
  }),
  "/api/auth/request-password-reset": () => ({ email: STAFF_EMAIL, redirectTo: "/admin/login" }),
  "/api/auth/reset-password": () => ({ newPassword: "long enough password", token: "abcdefghijklmnop" }),
  "/api/account/auth/sign-in/magic-link": () => ({
    email: "fuzz-buyer@example.com",
    callbackURL: "/account",
  }),
  "/api/account/devices/move": (fixture) => ({ deviceId: fixture.deviceId, region: "ng-lagos" }),
  "/api/account/devices/rename": (fixture) => ({ deviceId: fixture.deviceId, name: "Phone" }),
  "/api/admin/search": () => ({ q: "fuzz", page: 1 }),
  "/api/admin/subscriptions/extend": (fixture) => ({
    subscriptionId: fixture.subscriptionId,
    days: 1,
    reason: "fuzz",
  }),
  "/api/admin/servers/add": () => ({
    name: "ng-fuzz-add",
    endpoint: "203.0.113.99:51820",
    ipv4: "10.99.0.0/24",
    ipv6: "fd99::/64",
    reason: "fuzz",
  }),
  "/api/blog-admin/create": () => ({
    title: "Fuzz",
    slug: "fuzz",
    content: "x",
    author: "T",
    status: "draft",
    published_at: null,
  }),
};

export interface Fixture {
  sessionId: string;
  subscriptionId: string;
  deviceId: string;
}

function nest(depth: number): unknown {
  let inner: unknown = "deep";
  for (let level = 0; level < depth; level++) inner = level % 2 ? [inner] : { a: inner };
  return inner;
}

/** Percent-encoding that keeps a lone surrogate (encodeURIComponent throws on one). */
const encode = (text: string) =>
  [...text].map((char) => (/\p{Cs}/u.test(char) ? "%ED%A0%80" : encodeURIComponent(char))).join("");
