import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.ts";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  return { logger: createLogger({ level: "info", destination: stream }), lines };
}

describe("the JSON logger", () => {
  it("keeps allow-listed fields and numbers, drops any other text field and says which", () => {
    const { logger, lines } = capture();
    logger.info(
      {
        vpnServer: "ng-lagos-1",
        count: 3,
        ok: true,
        email: "ada@example.com",
        ip: "198.51.100.7",
        sessionId: "cs_test_capability",
        message: "the whole contact message",
        query: { email: "ada@example.com" },
      },
      "asked by ada@example.com from 198.51.100.7",
    );
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ vpnServer: "ng-lagos-1", count: 3, ok: true });
    expect(line.dropped).toEqual(["email", "ip", "sessionId", "message", "query"]);
    expect(line.msg).toBe("asked by [email] from [address]");
    expect(lines[0]).not.toContain("ada@example.com");
    expect(lines[0]).not.toContain("198.51.100.7");
    expect(lines[0]).not.toContain("cs_test_capability");
  });

  it("logs an error as its class, code, masked message cut before a failed query's params, and frames", () => {
    const { logger, lines } = capture();
    const cause = Object.assign(new Error("invalid byte sequence"), { code: "22021" });
    const error = new Error(
      'Failed query: insert into "contact_messages" values ($1)\nparams: ada@example.com,Secret body',
      {
        cause,
      },
    );
    logger.error({ err: error, path: "/contact/ada@example.com" }, "unexpected API error");
    const line = JSON.parse(lines[0]!) as { err: Record<string, unknown>; path: string };
    expect(line.err).toMatchObject({
      type: "Error",
      message: 'Failed query: insert into "contact_messages" values ($1)',
      cause: { type: "Error", code: "22021", message: "invalid byte sequence" },
    });
    expect(Array.isArray(line.err.stack)).toBe(true);
    expect(line.path).toBe("/contact/[email]");
    expect(lines[0]).not.toContain("Secret body");
    expect(lines[0]).not.toContain("ada@example.com");
  });
});
