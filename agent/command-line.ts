// The command lines of the agent and of the operator's scripts (`npm run vpn`, `doctor`, `backup`,
// `restore`): `--help` prints the usage; a flag it does not know, or a missing argument, is one
// line on stderr, then the usage, and exit status 2 — never a stack trace.
import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Stops the process with a one-line complaint and the usage (exit 2). */
export function usageError(message: string, usage: string): never {
  // parseArgs adds advice about positionals after its first sentence: the first line is enough.
  const line = message.split("\n")[0]!.replace(/\. To specify a positional argument.*$/, "");
  process.stderr.write(`${line}\n${usage}\n`);
  process.exit(2);
}

export function parseCommandLine<const O extends Options>(usage: string, args: string[], options: O) {
  const config = {
    args,
    options: { ...options, help: { type: "boolean", short: "h" } } as O & {
      help: { type: "boolean"; short: "h" };
    },
    allowPositionals: true,
    strict: true,
  } as const;
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    usageError((error as Error).message, usage);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return parsed;
}
