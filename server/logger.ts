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

export function createLogger(options: {
  level: string;
  destination?: DestinationStream;
  pretty?: boolean;
}): Logger {
  const base = {
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
  };
  if (options.destination) return pino(base, options.destination);
  return pino(base);
}
