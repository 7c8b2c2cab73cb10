// Issue 25: generated hostile input (fast-check) to every POST endpoint of the route table, public
// and authenticated: JSON bodies, form bodies and query strings holding NUL, unpaired surrogates,
// huge numbers, deep nesting, wrong types and 10,000-character strings. Not one answer may be a
// 5xx, and a refused request (4xx) changes no row. The endpoints are the route table's routes
// whose module has an action, so an endpoint added later is fuzzed without anyone listing it.
// Issue 37: every method (TRACE, CONNECT, PROPFIND and a token nobody knows among them) and an
// empty POST of every content type, to every route, over the real HTTP server: no 5xx, and nothing
// written to stdout or stderr but the JSON log.
import path from "node:path";
import fc from "fast-check";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import routeConfig from "#app/routes.ts";
import { queryRows } from "#server/db/client.ts";
import { rotateNodeToken } from "#server/domain/vpn/servers.ts";
import {
  createTestApp,
  overHttp,
  startTestServer,
  type TestApp,
  type TestServer,
} from "../../support/app.ts";
import { buy, signedInCustomer } from "../../support/account.ts";
import { databaseKinds } from "../../support/database.ts";
import { startCheckout } from "../../support/purchase.ts";
import { tableDigests } from "../../support/table-digest.ts";
import { addTestVpnServer } from "../../support/vpn.ts";
import { adminToken } from "../../support/vpn-admin.ts";
import { arbitraries, BASE_BODIES, type Fixture } from "../../support/fuzz-inputs.ts";
import { rawRequest, type RawAnswer } from "../../support/http.ts";
import { createAccount, STAFF_EMAIL } from "../../support/staff.ts";

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

/** Whether the route file's module has an action, and whether it is a page (it renders) or a resource route. */
async function routeKind(file: string): Promise<{ action: boolean; page: boolean }> {
  const module = (await import(
    /* @vite-ignore */ path.resolve(import.meta.dirname, "../../../app", file)
  )) as { action?: unknown; default?: unknown };
  return { action: typeof module.action === "function", page: typeof module.default === "function" };
}

interface Target {
  path: string;
  action: boolean;
  page: boolean;
}

const PARAMS: Record<string, (ids: Record<string, string>) => string> = {
  sessionId: (ids) => ids.sessionId!,
  subscriptionId: (ids) => ids.subscriptionId!,
  id: (ids) => ids.subscriptionId!,
  slug: () => "no-such-post",
  token: () => "not-a-token",
};

/**
 * Every route of the route table as concrete targets, with whether a POST reaches an action:
 * params filled in, the splats' endpoints listed, the catch-alls at unknown paths, sign-outs last.
 */
async function everyTarget(ids: Record<string, string>): Promise<Target[]> {
  const targets: Target[] = [];
  for (const route of flatten(routeConfig as RouteEntry[])) {
    if (route.path === undefined && !(route as { index?: boolean }).index) continue;
    const kind = await routeKind(route.file);
    const pattern = `/${route.path ?? ""}`;
    const paths =
      SPLATS[pattern] ??
      (pattern === "/*"
        ? ["/no-such-page"]
        : pattern === "/api/*"
          ? ["/api/no-such-endpoint"]
          : [pattern.replace(/:([A-Za-z]+)/g, (_, name: string) => PARAMS[name]!(ids))]);
    targets.push(...paths.map((target) => ({ path: target, ...kind })));
  }
  const last = (target: { path: string }) => Number(target.path.endsWith("/sign-out"));
  return targets.sort((a, b) => last(a) - last(b));
}

/** Every route with an action, as concrete POST targets, sign-outs last (they end the fuzzer's own sessions). */
async function postEndpoints(sessionId: string): Promise<string[]> {
  const targets: string[] = [];
  for (const route of flatten(routeConfig as RouteEntry[])) {
    if (route.path === undefined || route.path === "*") continue;
    const module = (await import(
      /* @vite-ignore */ path.resolve(import.meta.dirname, "../../../app", route.file)
    )) as {
      action?: unknown;
    };
    if (typeof module.action !== "function") continue;
    const pattern = `/${route.path}`;
    targets.push(...(SPLATS[pattern] ?? [pattern.replace(/:[A-Za-z]+/g, sessionId)]));
  }
  return targets.sort((a, b) => Number(a.endsWith("/sign-out")) - Number(b.endsWith("/sign-out")));
}

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
      // A sign-in link is queued after its answer (customer-auth.ts): its rows belong to this request.
      await app.services.mail.detachedSettled();
      const after = await tableDigests(app.services.db);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status >= 500) failures.push(`${response.status} ${label}`);
      else if (response.status >= 400) {
        const changed = Object.keys(after).filter((table) => after[table] !== digest[table]);
        if (changed.length > 0)
          failures.push(`${response.status} changed rows of ${changed.join(", ")}: ${label}`);
      }
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

/** Methods a client may send: the app's three, the rest of HTTP's and WebDAV's, and a token Node does not know. */
const METHODS = [
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
  "TRACE",
  "CONNECT",
  "PROPFIND",
  "MKCOL",
  "FROBNICATE",
];
/** Content types an empty POST declares (none among them). */
const EMPTY_BODY_TYPES = [
  undefined,
  "application/json",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=fuzz",
  "text/plain",
  "application/octet-stream",
];

describe.each(databaseKinds)("every method and every empty body on every route, over HTTP, on %s", (kind) => {
  let server: TestServer;
  let app: TestApp;
  let targets: Target[];
  const cookies = { admin: "", customer: "" };

  beforeAll(async () => {
    server = await startTestServer({ kind, backgroundJobs: false, env: { TRUST_PROXY: "127.0.0.1" } });
    app = overHttp(server);
    cookies.admin = (await createAccount(app, STAFF_EMAIL)).cookie;
    const sessionId = await buy(app, "pro-monthly", "fuzz-buyer@example.com");
    cookies.customer = await signedInCustomer(app, "fuzz-buyer@example.com");
    const [row] = await queryRows<{ subscriptionId: string }>(
      app.services.db,
      sql`select id as "subscriptionId" from subscriptions where checkout_session_id = ${sessionId}`,
    );
    const { sessionId: open } = await startCheckout(app, "unlock", "fuzz-open@example.com");
    targets = await everyTarget({ sessionId: open, subscriptionId: row!.subscriptionId });
    // React Router's single-fetch data requests stand for their pages.
    targets.push(
      { path: "/_root.data", action: false, page: true },
      { path: "/pricing.data", action: false, page: true },
      { path: `/checkout/${open}.data`, action: true, page: true },
      { path: "/admin/blog.data", action: true, page: true },
    );
  }, 180_000);
  afterAll(async () => {
    await app?.close();
  });

  const cookieOf = (target: string) =>
    target.startsWith("/admin") ||
    target.startsWith("/api/admin") ||
    target.startsWith("/api/blog-admin") ||
    target.startsWith("/api/auth/")
      ? cookies.admin
      : target.startsWith("/account") || target.startsWith("/api/account/")
        ? cookies.customer
        : "";

  it("derives the targets from the route table: pages, resource routes and the API", () => {
    const paths = targets.map((target) => target.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "/",
        "/pricing",
        "/admin/blog",
        "/api/create-checkout",
        "/healthz",
        "/no-such-page",
      ]),
    );
    expect(paths.some((target) => /^\/checkout\/cs_test_/.test(target))).toBe(true);
  });

  it("answers every method and every empty POST with no 5xx: 405 with Allow for a method it does not take, 405 or 415 { error, message } for a POST nothing can read", async () => {
    const written: string[] = [];
    const record = (chunk: unknown) => {
      written.push(String(chunk));
      return true;
    };
    const spies = [
      vi.spyOn(process.stdout, "write").mockImplementation(record as typeof process.stdout.write),
      vi.spyOn(process.stderr, "write").mockImplementation(record as typeof process.stderr.write),
      ...(["log", "info", "warn", "error", "debug", "trace"] as const).map((name) =>
        vi.spyOn(console, name).mockImplementation((...args: unknown[]) => void record(args.join(" "))),
      ),
    ];
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const send = async (method: string, target: string, headers: Record<string, string>, label: string) => {
      const cookie = cookieOf(target);
      let answer: RawAnswer;
      try {
        answer = await rawRequest(server.url, {
          method,
          target,
          headers: { ...(cookie ? { cookie } : {}), ...headers },
        });
      } catch (error) {
        failures.push(`${label}: ${(error as Error).message}`);
        return undefined;
      }
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status >= 500) failures.push(`${answer.status} ${label}`);
      return answer;
    };
    const refusal = (answer: RawAnswer | undefined, status: number, label: string, allow?: string) => {
      if (!answer) return;
      let body: unknown;
      try {
        body = JSON.parse(answer.body);
      } catch {
        body = answer.body.slice(0, 80);
      }
      const shaped =
        answer.status === status &&
        (allow === undefined || answer.headers.allow === allow) &&
        typeof (body as { error?: unknown }).error === "string" &&
        typeof (body as { message?: unknown }).message === "string";
      if (!shaped)
        failures.push(`${label}: ${answer.status} ${answer.headers.allow ?? ""} ${JSON.stringify(body)}`);
    };
    try {
      for (const { path: target, action, page } of targets) {
        for (const method of METHODS) {
          const label = `${method} ${target}`;
          const answer = await send(
            method,
            target,
            method === "POST"
              ? { "content-length": "0", "content-type": "application/x-www-form-urlencoded" }
              : {},
            label,
          );
          if (!["GET", "HEAD", "POST"].includes(method)) refusal(answer, 405, label, "GET, HEAD, POST");
        }
        for (const type of EMPTY_BODY_TYPES) {
          const label = `POST ${target} empty ${type ?? "(no type)"}`;
          const answer = await send(
            "POST",
            target,
            { "content-length": "0", ...(type ? { "content-type": type } : {}) },
            label,
          );
          if (!action) refusal(answer, 405, label, "GET, HEAD");
          // A page's action reads a form: an empty POST of any other type, or none, is refused unread.
          else if (page && !target.startsWith("/api/") && type !== "application/x-www-form-urlencoded")
            refusal(answer, 415, label);
        }
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(failures, `statuses ${JSON.stringify([...statuses])}`).toEqual([]);
    const notJson = written
      .flatMap((chunk) => chunk.split("\n"))
      .filter((line) => {
        if (!line.trim()) return false;
        try {
          return typeof JSON.parse(line) !== "object";
        } catch {
          return true;
        }
      });
    expect(notJson).toEqual([]);
    expect(statuses.get(405) ?? 0).toBeGreaterThan(targets.length * 9);
    const errors = app.log.entries().filter((entry) => Number(entry.level) >= 50);
    expect(errors.map((entry) => entry.msg)).toEqual([]);
  }, 900_000);

  it("answers an anonymous POST to a page without an action with a 405 logged at info, not an error", async () => {
    const before = app.log.lines.length;
    const answer = await app.request("/pricing", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "a=1",
    });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("GET, HEAD");
    expect(await answer.json()).toEqual({
      error: "Method not allowed",
      message: "Use GET or HEAD for this endpoint.",
    });
    const lines = app.log.entries().slice(before);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 30, msg: "method not allowed", method: "POST", route: "/pricing" }),
    );
    expect(lines.filter((entry) => Number(entry.level) >= 50)).toEqual([]);
  });
});
