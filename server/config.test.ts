import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, publicConfig, usesTestCheckout } from "./config.ts";

/** Every setting live mode needs. */
const LIVE = {
  NAIJALINK_MODE: "live",
  STRIPE_SECRET_KEY: "sk_live_x",
  STRIPE_WEBHOOK_SECRET: "whsec_x",
  SMTP_URL: "smtp://mail.naijalink.example:587",
  PUBLIC_URL: "https://naijalink.example",
  STAFF_ADMINS: "owner@naijalink.example",
};

describe("configuration", () => {
  it("starts on the embedded defaults with no settings at all", () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(3000);
    expect(config.BRAND_NAME).toBe("NaijaLink");
    expect(config.SUPPORT_EMAIL).toBe("support@naijalink.example");
    expect(config.STAFF_ADMINS).toEqual(["admin@naijalink.example"]);
    expect(config.STAFF_EDITORS).toEqual(["editor@naijalink.example"]);
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.PUBLIC_URL).toBe("http://localhost:3000");
    expect(config.DATA_DIR).toMatch(/\/data$/);
  });

  it("takes VPN_DNS only as IP addresses: a line break cannot reach the development server's configs", () => {
    expect(loadConfig({ VPN_DNS: "1.1.1.1,1.0.0.1" }).VPN_DNS).toBe("1.1.1.1, 1.0.0.1");
    expect(() => loadConfig({ VPN_DNS: "1.1.1.1\nPostUp = touch /tmp/x" })).toThrow(/VPN_DNS: dns must be/);
  });

  it("runs in demo mode unless live mode is chosen", () => {
    expect(loadConfig({}).NAIJALINK_MODE).toBe("demo");
    expect(() => loadConfig({ NAIJALINK_MODE: "production" })).toThrow(/NAIJALINK_MODE/);
  });

  it("refuses live mode without each setting a real store needs, naming every missing one", () => {
    expect(loadConfig(LIVE).NAIJALINK_MODE).toBe("live");
    for (const name of ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "SMTP_URL", "PUBLIC_URL"]) {
      const { [name]: _missing, ...rest } = LIVE as Record<string, string>;
      expect(() => loadConfig(rest), name).toThrow(new RegExp(`${name}: required when NAIJALINK_MODE=live`));
    }
    try {
      loadConfig({ NAIJALINK_MODE: "live" });
      expect.unreachable();
    } catch (error) {
      for (const name of ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "SMTP_URL", "PUBLIC_URL"])
        expect(String(error)).toContain(name);
    }
    expect(() => loadConfig({ ...LIVE, PUBLIC_URL: "http://naijalink.example" })).toThrow(/https/);
  });

  it("refuses live mode without staff of its own, naming the variable, and refuses the demo's staff addresses there", () => {
    const { STAFF_ADMINS: _staff, ...live } = LIVE;
    expect(() => loadConfig(live)).toThrow(/STAFF_ADMINS: required when NAIJALINK_MODE=live/);
    expect(() => loadConfig({ ...live, STAFF_ADMINS: "admin@naijalink.example" })).toThrow(
      /is a demo address/,
    );
    expect(() =>
      loadConfig({ ...live, STAFF_ADMINS: "me@shop.example", STAFF_EDITORS: "editor@naijalink.example" }),
    ).toThrow(/is a demo address/);
    expect(loadConfig({ ...live, STAFF_EDITORS: "writer@shop.example" }).STAFF_EDITORS).toEqual([
      "writer@shop.example",
    ]);
    expect(loadConfig({}).STAFF_ADMINS).toEqual(["admin@naijalink.example"]);
  });

  it("requires staff to use two-factor by default in live mode only, unless set either way", () => {
    expect(loadConfig({}).STAFF_REQUIRE_TOTP).toBe(false);
    expect(loadConfig(LIVE).STAFF_REQUIRE_TOTP).toBe(true);
    expect(loadConfig({ STAFF_REQUIRE_TOTP: "true" }).STAFF_REQUIRE_TOTP).toBe(true);
    expect(loadConfig({ ...LIVE, STAFF_REQUIRE_TOTP: "false" }).STAFF_REQUIRE_TOTP).toBe(false);
    expect(() => loadConfig({ STAFF_REQUIRE_TOTP: "yes" })).toThrow(/STAFF_REQUIRE_TOTP/);
  });

  it("uses the built-in test checkout only in demo mode without Stripe", () => {
    expect(usesTestCheckout(loadConfig({}))).toBe(true);
    expect(usesTestCheckout(loadConfig({ STRIPE_SECRET_KEY: "sk_test_x" }))).toBe(false);
  });

  it("trusts X-Forwarded-For only from a counted number of proxies or listed addresses, never from anyone", () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "false" }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "1" }).TRUST_PROXY).toBe(1);
    expect(loadConfig({ TRUST_PROXY: "10.0.0.5, 10.1.0.0/16, fd00::/8" }).TRUST_PROXY).toEqual([
      "10.0.0.5",
      "10.1.0.0/16",
      "fd00::/8",
    ]);
    expect(() => loadConfig({ TRUST_PROXY: "true" })).toThrow(
      /TRUST_PROXY: true would trust any X-Forwarded-For/,
    );
    expect(() => loadConfig({ TRUST_PROXY: "10.0.0.0/40" })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: "proxy.example" })).toThrow(/TRUST_PROXY/);
  });

  it("names the variable of a bad value", () => {
    expect(() => loadConfig({ PORT: "lots" })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: "lots" })).toThrow(/PORT/);
    expect(() => loadConfig({ STAFF_EMAILS: "admin@x.example, not-an-email" })).toThrow(/STAFF_EMAILS/);
    expect(() => loadConfig({ DATABASE_URL: "nonsense" })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ VPN_ENDPOINT: "no-port" })).toThrow(/VPN_ENDPOINT/);
  });

  it("takes VPN_ENDPOINT by the same rule as the operator's server commands", () => {
    expect(() => loadConfig({ VPN_ENDPOINT: "2001:db8::1:51820" })).toThrow(/IPv6 in brackets/);
    expect(() => loadConfig({ VPN_ENDPOINT: "203.0.113.10:70000" })).toThrow(/VPN_ENDPOINT/);
    expect(loadConfig({ VPN_ENDPOINT: "[2001:db8::1]:51820" }).VPN_ENDPOINT).toBe("[2001:db8::1]:51820");
  });

  it("never repeats a secret's value in its error", () => {
    const secret = "short-secret-value";
    try {
      loadConfig({ BETTER_AUTH_SECRET: secret, CONFIG_ENCRYPTION_KEY: "also-a-secret" });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).toMatch(/BETTER_AUTH_SECRET/);
      expect(String(error)).toMatch(/CONFIG_ENCRYPTION_KEY/);
      expect(String(error)).not.toContain(secret);
      expect(String(error)).not.toContain("also-a-secret");
    }
  });

  it("normalises the staff list and the public URL", () => {
    const config = loadConfig({
      STAFF_EMAILS: " Boss@Example.com ,ed@example.com",
      PUBLIC_URL: "https://naijalink.example/",
    });
    expect(config.STAFF_ADMINS).toEqual(["boss@example.com", "ed@example.com"]);
    expect(config.STAFF_EDITORS).toEqual([]);
    expect(config.PUBLIC_URL).toBe("https://naijalink.example");
  });

  it("gives each staff address one role: STAFF_EMAILS and STAFF_ADMINS are admins, an admin is never also an editor", () => {
    const config = loadConfig({
      STAFF_EMAILS: "old@example.com",
      STAFF_ADMINS: "boss@example.com",
      STAFF_EDITORS: "writer@example.com, Boss@example.com",
    });
    expect(config.STAFF_ADMINS).toEqual(["boss@example.com", "old@example.com"]);
    expect(config.STAFF_EDITORS).toEqual(["writer@example.com"]);
    // Setting only editors leaves no default admin behind.
    expect(loadConfig({ STAFF_EDITORS: "writer@example.com" }).STAFF_ADMINS).toEqual([]);
  });

  it("takes a METRICS_TOKEN of at least 32 characters without spaces; unset or empty serves no metrics", () => {
    const token = "0123456789abcdef0123456789abcdef";
    expect(loadConfig({}).METRICS_TOKEN).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: "" }).METRICS_TOKEN).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: token }).METRICS_TOKEN).toBe(token);
    for (const bad of ["too-short", `${token} ${token}`]) {
      let error: unknown;
      try {
        loadConfig({ METRICS_TOKEN: bad });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toContain("METRICS_TOKEN: must be at least 32 characters");
      expect((error as ConfigError).message).not.toContain(bad);
    }
  });

  it("gives new VPN servers' configs MTU 1280 unless VPN_CLIENT_MTU says 1280-1420", () => {
    expect(loadConfig({}).VPN_CLIENT_MTU).toBe(1280);
    expect(loadConfig({ VPN_CLIENT_MTU: "1420" }).VPN_CLIENT_MTU).toBe(1420);
    for (const bad of ["1279", "1421", "1500", "1300.5", "big"])
      expect(() => loadConfig({ VPN_CLIENT_MTU: bad }), bad).toThrow(/VPN_CLIENT_MTU: must be 1280-1420/);
  });

  it("takes a DNS check zone only under the reserved .internal domain", () => {
    expect(loadConfig({}).VPN_DNS_CHECK_ZONE).toBe("dns-check.internal");
    expect(loadConfig({ VPN_DNS_CHECK_ZONE: "Check.NaijaLink.internal" }).VPN_DNS_CHECK_ZONE).toBe(
      "check.naijalink.internal",
    );
    for (const bad of ["naijalink.example", "internal", "-bad.internal", "a b.internal"])
      expect(() => loadConfig({ VPN_DNS_CHECK_ZONE: bad }), bad).toThrow(
        /VPN_DNS_CHECK_ZONE: must be a DNS name/,
      );
  });

  it("shows the browser only non-secret values", () => {
    const config = loadConfig({ STRIPE_SECRET_KEY: "sk_test_123", BETTER_AUTH_SECRET: "x".repeat(40) });
    const exposed = JSON.stringify(publicConfig(config));
    expect(exposed).not.toContain("sk_test_123");
    expect(exposed).not.toContain("x".repeat(40));
    expect(exposed).toContain("support@naijalink.example");
  });
});
