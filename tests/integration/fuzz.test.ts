// Issue 25: generated hostile input (fast-check) to every POST endpoint of the route table, public
// and authenticated: JSON bodies, form bodies and query strings holding NUL, unpaired surrogates,
// huge numbers, deep nesting, wrong types and 10,000-character strings. Not one answer may be a
// 5xx, and a refused request (4xx) changes no row. The endpoints are the route table's routes
// whose module has an action, so an endpoint added later is fuzzed without anyone listing it.
import path from "node:path";
import fc from "fast-check";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import routeConfig from "#app/routes.ts";
import { queryRows } from "#server/db/client.ts";
import { rotateNodeToken } from "#server/domain/vpn/servers.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { buy, signedInCustomer } from "../support/account.ts";
import { databaseKinds } from "../support/database.ts";
import { startCheckout } from "../support/purchase.ts";
import { tableDigests } from "../support/table-digest.ts";
import { addTestVpnServer } from "../support/vpn.ts";
import { adminToken } from "../support/vpn-admin.ts";
import { createAccount, STAFF_EMAIL } from "./admin-helpers.ts";

/** Generated requests per endpoint and kind of input: enough to find a 500, few enough for the suite. */
const RUNS = { json: 20, query: 4, form: 10 };
/** One seed per run, printed with any failure, so a failing input can be generated again. */
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

interface RouteEntry {
  path?: string;
  file: string;
  children?: RouteEntry[];
}
const flatten = (entries: readonly RouteEntry[]): RouteEntry[] =>
  entries.flatMap((entry) => [entry, ...flatten(entry.children ?? [])]);

/** better-auth's routes behind the two splat routes (the staff and the customer instance). */
const SPLATS: Record<string, string[]> = {
  "/api/auth/*": [
    "/api/auth/sign-up/email",
    "/api/auth/sign-in/email",
    "/api/auth/send-verification-email",
    "/api/auth/confirm-email",
    "/api/auth/request-password-reset",
    "/api/auth/reset-password",
    "/api/auth/two-factor/enable",
    "/api/auth/two-factor/verify-totp",
    "/api/auth/two-factor/verify-backup-code",
    "/api/auth/change-password",
    "/api/auth/update-user",
    "/api/auth/sign-out",
  ],
  "/api/account/auth/*": ["/api/account/auth/sign-in/magic-link", "/api/account/auth/sign-out"],
};

/** Every route with an action, as concrete POST targets, sign-outs last (they end the fuzzer's own sessions). */
async function postEndpoints(sessionId: string): Promise<string[]> {
  const targets: string[] = [];
  for (const route of flatten(routeConfig as RouteEntry[])) {
    if (route.path === undefined || route.path === "*") continue;
    const module = (await import(
      /* @vite-ignore */ path.resolve(import.meta.dirname, "../../app", route.file)
    )) as {
      action?: unknown;
    };
    if (typeof module.action !== "function") continue;
    const pattern = `/${route.path}`;
    targets.push(...(SPLATS[pattern] ?? [pattern.replace(/:[A-Za-z]+/g, sessionId)]));
  }
  return targets.sort((a, b) => Number(a.endsWith("/sign-out")) - Number(b.endsWith("/sign-out")));
}

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

function arbitraries(ids: string[]) {
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
const BASE_BODIES: Record<string, (fixture: Fixture) => Record<string, unknown>> = {
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

interface Fixture {
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

describe.each(databaseKinds)("fuzzing every POST endpoint on %s", (kind) => {
  let app: TestApp;
  let endpoints: string[];
  const headers = {} as Record<"admin" | "customer" | "node" | "vpnAdmin", Record<string, string>>;
  let ids: string[];
  let fixture: Fixture;

  beforeAll(async () => {
    app = await createTestApp({ kind });
    headers.admin = { cookie: (await createAccount(app, STAFF_EMAIL)).cookie };
    const paid = await buy(app, "pro-monthly", "fuzz-buyer@example.com");
    headers.customer = { cookie: await signedInCustomer(app, "fuzz-buyer@example.com") };
    const server = await addTestVpnServer(app.services.db, { name: "ng-fuzz-1", octet: 77 });
    headers.node = {
      authorization: `Bearer ${(await rotateNodeToken(app.services.db, server.name))!.nodeToken}`,
    };
    headers.vpnAdmin = { authorization: `Bearer ${await adminToken(app)}` };
    const { sessionId: open } = await startCheckout(app, "unlock", "fuzz-open@example.com");
    const [row] = await queryRows<{ subscriptionId: string; deviceId: string }>(
      app.services.db,
      sql`select s.id as "subscriptionId", d.id as "deviceId" from subscriptions s join devices d on d.subscription_id = s.id where s.checkout_session_id = ${paid}`,
    );
    ids = [paid, open, row!.subscriptionId, row!.deviceId, server.id, server.name, "fuzz-buyer@example.com"];
    fixture = { sessionId: paid, subscriptionId: row!.subscriptionId, deviceId: row!.deviceId };
    endpoints = await postEndpoints(open);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
  });

  const callerOf = (path: string): Record<string, string> => {
    if (/^\/api\/(admin|blog-admin)\//.test(path) || path.startsWith("/api/auth/")) return headers.admin;
    if (path.startsWith("/api/account/") || path === "/account") return headers.customer;
    if (path === "/api/nodes/status") return headers.node;
    if (path === "/api/nodes/servers") return headers.vpnAdmin;
    return {};
  };

  it("derives the endpoints from the route table", () => {
    expect(endpoints).toEqual(
      expect.arrayContaining([
        "/api/send-contact-email",
        "/api/verify-payment",
        "/api/admin/servers/add",
        "/api/account/devices/move",
        "/api/blog-admin/create",
        "/api/nodes/status",
        "/api/webhooks/stripe",
        "/account",
      ]),
    );
    expect(endpoints.some((path) => path.startsWith("/checkout/"))).toBe(true);
  });

  it("answers every generated JSON body, form body and query string with no 5xx, and a refused one changes no row", async () => {
    const { json, form, query, mutated } = arbitraries(ids);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let digest = await tableDigests(app.services.db);
    const send = async (path: string, init: RequestInit, label: string) => {
      const response = await app.request(path, {
        ...init,
        headers: { origin: app.config.PUBLIC_URL, ...callerOf(path.split("?")[0]!), ...init.headers },
      });
      await response.arrayBuffer();
      const after = await tableDigests(app.services.db);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status >= 500) failures.push(`${response.status} ${label}`);
      else if (response.status >= 400 && JSON.stringify(after) !== JSON.stringify(digest))
        failures.push(`${response.status} changed rows: ${label}`);
      digest = after;
      return response.status;
    };
    for (const path of endpoints) {
      const isPage = !path.startsWith("/api/");
      const base = BASE_BODIES[path]?.(fixture);
      const bodies = base
        ? fc.sample(fc.oneof(json, mutated(base)), { numRuns: RUNS.json * 2, seed: SEED })
        : fc.sample(json, { numRuns: RUNS.json, seed: SEED });
      for (const body of bodies)
        await send(
          path,
          { method: "POST", headers: { "content-type": "application/json" }, body },
          `${path} json ${body.slice(0, 120)}`,
        );
      for (const search of fc.sample(query, { numRuns: RUNS.query, seed: SEED }))
        await send(
          `${path}?${search}`,
          { method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
          `${path}?${search.slice(0, 120)}`,
        );
      if (!isPage) continue;
      for (const body of fc.sample(form, { numRuns: RUNS.form, seed: SEED }))
        await send(
          path,
          { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body },
          `${path} form ${body.slice(0, 120)}`,
        );
    }
    expect(failures, `FUZZ_SEED=${SEED}`).toEqual([]);
    // The inputs reached the handlers: most are refused, some are taken.
    const answered = [...statuses.values()].reduce((sum, count) => sum + count, 0);
    expect(answered).toBeGreaterThan(endpoints.length * (RUNS.json + RUNS.query));
    expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
    expect([...statuses.keys()].some((status) => status < 300)).toBe(true);
    expect(app.log.text).not.toContain("unexpected API error");
  }, 900_000);
});
