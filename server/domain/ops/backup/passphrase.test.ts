import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPassphrase } from "./backup.ts";

describe("the backup passphrase file", () => {
  let directory: string;
  beforeAll(async () => {
    directory = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-passphrase-"));
  });
  afterAll(async () => {
    await fs.rm(directory, { recursive: true, force: true });
  });

  it("is refused while every user can read it, with the command that fixes it; taken once it is private", async () => {
    const file = path.join(directory, "passphrase");
    await fs.writeFile(file, "a long enough passphrase\n");
    await fs.chmod(file, 0o644);
    await expect(readPassphrase(file, undefined)).rejects.toThrow(`run chmod 600 ${file}`);
    await fs.chmod(file, 0o604);
    await expect(readPassphrase(file, undefined)).rejects.toThrow("can be read by every user");
    await fs.chmod(file, 0o600);
    expect(await readPassphrase(file, undefined)).toBe("a long enough passphrase");
  });
});
