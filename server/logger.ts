import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger };

/** Paths whose values never reach a log line, whatever logs them. */
export const REDACTED_PATHS = [
  "password",
  "*.password",
  "token",
  "*.token",
  "privateKey",
  "*.privateKey",
  "presharedKey",
  "*.presharedKey",
  "secret",
  "*.secret",
  "config",
  "*.config",
  "req.headers.authorization",
  "req.headers.cookie",
  "headers.authorization",
  "headers.cookie",
];

/**
 * The fields a log line may carry text in (issue 25): names of things, ids, kinds, outcomes.
 * Numbers, booleans and null pass under any name; text under any other name is dropped and the
 * line says which fields were (`dropped`), so a new one is added here on purpose, never by
 * accident. Never: e-mail addresses, client addresses, what a person typed, checkout session ids
 * (they open a buyer's config), request bodies or queries.
 */
export const LOGGED_TEXT_FIELDS = new Set([
  "action",
  "alert",
  "checkout",
  "command",
  "contactMessageId",
  "currency",
  "database",
  "disputeId",
  "error",
  "errorName",
  "eventId",
  "expected",
  "files",
  "kind",
  "lastSeenAt",
  "link",
  "mail",
  "method",
  "migrations",
  "mode",
  "oldestPendingAt",
  "outboxId",
  "path",
  "paymentIntentId",
  "planId",
  "postId",
  "problem",
  "reason",
  "received",
  "reversalId",
  "reversals",
  "route",
  "source",
  "staff",
  "status",
  "subscriptionId",
  "subscriptionIds",
  "type",
  "url",
  "vpnServer",
]);

/** An e-mail address, also %-encoded (`%40`), as it may sit in free text or a path. */
const EMAIL = /[^\s@<>"'(),;:/?&=]+(?:@|%40)[^\s@<>"'(),;:/?&=]+\.[^\s@<>"'(),;:/?&=]+/gi;
const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}\b/g;

/** Text as a log line may hold it: e-mail addresses masked, at most 500 characters. */
export function scrubLogText(text: string): string {
  return text.replace(EMAIL, "[email]").slice(0, 500);
}

/** A message (free text, a library's too): client addresses masked as well. */
const scrubMessage = (text: string) => scrubLogText(text).replace(IPV4, "[address]");

function scrubValue(value: unknown): unknown {
  if (typeof value === "string") return scrubLogText(value);
  if (Array.isArray(value)) return value.map(scrubValue);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, scrubValue(inner)]));
  return value;
}

function allowListed(object: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(object)) {
    if (key === "err") kept.err = value;
    else if (value === null || typeof value === "number" || typeof value === "boolean") kept[key] = value;
    else if (LOGGED_TEXT_FIELDS.has(key)) kept[key] = scrubValue(value);
    else dropped.push(key);
  }
  if (dropped.length) kept.dropped = dropped;
  return kept;
}

/**
 * An error as the log keeps it: its class, code and message (masked, and cut before a failed
 * query's `params:`, which hold what the caller sent), its cause's likewise, and the stack's
 * frames without the message line.
 */
export function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const code = (error as { code?: unknown }).code;
  const frames = (error.stack ?? "")
    .split("\n")
    .filter((line) => line.startsWith("    at "))
    .slice(0, 12)
    .map((line) => line.trim());
  return {
    type: error.name,
    ...(typeof code === "string" || typeof code === "number" ? { code } : {}),
    message: scrubLogText(error.message.split(/\bparams:/)[0]!.trim()),
    ...(error.cause === undefined ? {} : { cause: serializeError(error.cause) }),
    stack: frames,
  };
}

export function createLogger(options: {
  level: string;
  destination?: DestinationStream;
  pretty?: boolean;
}): Logger {
  const base = {
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    serializers: { err: serializeError },
    formatters: { log: allowListed },
    hooks: {
      // The message is text as well: masked like the fields.
      logMethod(this: Logger, args: unknown[], method: (...args: unknown[]) => void) {
        method.apply(
          this,
          args.map((arg) => (typeof arg === "string" ? scrubMessage(arg) : arg)),
        );
      },
    },
  };
  if (options.destination) return pino(base, options.destination);
  return pino(base);
}
