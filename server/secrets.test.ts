import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import { createSealer, generateToken, hashToken, loadSecrets } from "./secrets.ts";

describe("secrets at rest", () => {
  const sealer = createSealer(Buffer.alloc(32, 1).toString("base64"));

  it("round-trips a value and never stores it readable", () => {
    const sealed = sealer.seal("PrivateKey = abc");
    expect(sealed).not.toContain("abc");
    expect(sealer.unseal(sealed)).toBe("PrivateKey = abc");
    expect(sealer.seal("same")).not.toBe(sealer.seal("same"));
  });

  it("rejects a tampered value and a foreign key", () => {
    const sealed = sealer.seal("secret");
    const tampered = sealed.slice(0, -2) + (sealed.endsWith("A") ? "BB" : "AA");
    expect(() => sealer.unseal(tampered)).toThrow();
    expect(() => createSealer(Buffer.alloc(32, 2).toString("base64")).unseal(sealed)).toThrow();
  });

  it("generates keys once into DATA_DIR and reuses them after a restart", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-secrets-"));
    const config = loadConfig({ DATA_DIR: dir });
    const first = await loadSecrets(config);
    const second = await loadSecrets(config);
    expect(second).toEqual(first);
    const stat = await fs.stat(path.join(dir, "secrets.json"));
    expect(stat.mode & 0o777).toBe(0o600);
    await fs.rm(dir, { recursive: true });
  });

  it("makes 128-bit tokens and stores only their hash", () => {
    const token = generateToken();
    expect(Buffer.from(token, "base64url")).toHaveLength(16);
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).not.toContain(token);
  });
});
