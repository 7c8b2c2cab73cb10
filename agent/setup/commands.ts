// Runs and prints setup's steps: without a shell, each shown as the shell line an operator could
// type, so `--dry-run` prints exactly what a real run does.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import type { Step } from "./plan.ts";

export class CommandError extends Error {}

/** Runs a command; resolves with its stdout, rejects with its stderr (the argv carries no secret). */
export function runCommand(
  argv: string[],
  options: { env?: Record<string, string>; input?: string } = {},
): Promise<string> {
  const [file, ...args] = argv;
  return new Promise((resolve, reject) => {
    const child = execFile(
      file!,
      args,
      { timeout: 30_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ...options.env } },
      (error, stdout, stderr) => {
        if (!error) return resolve(String(stdout));
        const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
        const detail = missing ? "not found" : String(stderr).trim().slice(0, 500) || error.message;
        reject(new CommandError(`${argv.join(" ")}: ${detail}`));
      },
    );
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(options.input ?? "");
  });
}

/** Null instead of an error: for reading facts, where "absent" is an answer. */
export const tryCommand = (argv: string[]) => runCommand(argv).catch(() => null);

export const shellWord = (word: string) =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;

export function formatStep(step: Step): string {
  const comment = `# ${step.why}`;
  if (step.kind === "remove") return `${comment}\nrm -f ${shellWord(step.path)}`;
  if (step.kind === "write") {
    const mode = step.mode.toString(8);
    return `${comment}\ninstall -m ${mode} /dev/stdin ${shellWord(step.path)} <<'EOF'\n${step.content}EOF`;
  }
  const env = Object.entries(step.env ?? {}).map(([name, value]) => `${name}=${shellWord(value)} `);
  const line = `${env.join("")}${step.argv.map(shellWord).join(" ")}`;
  return step.input === undefined ? `${comment}\n${line}` : `${comment}\n${line} <<'EOF'\n${step.input}EOF`;
}

export async function applyStep(step: Step): Promise<void> {
  if (step.kind === "run") {
    await runCommand(step.argv, { env: step.env, input: step.input });
  } else if (step.kind === "write") {
    await fs.mkdir(path.dirname(step.path), { recursive: true, mode: 0o700 });
    const temporary = `${step.path}.${process.pid}.tmp`;
    await fs.writeFile(temporary, step.content, { mode: step.mode });
    await fs.chmod(temporary, step.mode);
    await fs.rename(temporary, step.path);
  } else {
    await fs.rm(step.path, { force: true });
  }
}
