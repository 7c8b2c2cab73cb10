import { describe, expect, it } from "vitest";
import { BackupArchiveError, openBackup, sealBackup, type BackupContents } from "./archive.ts";

const PASSPHRASE = "a long enough passphrase";
const contents: BackupContents = {
  createdAt: "2026-11-24T01:00:00.000Z",
  database: "postgres",
  databaseDump: Buffer.from("PGDMP the dump itself"),
  secretsJson: Buffer.from('{"configEncryptionKey":"k","authSecret":"s"}'),
};

describe("backup archives", () => {
  it("give back exactly what was sealed, with the right passphrase", async () => {
    const archive = await sealBackup(contents, PASSPHRASE);
    expect(archive.includes("PGDMP")).toBe(false);
    expect(archive.includes("authSecret")).toBe(false);
    expect(await openBackup(archive, PASSPHRASE)).toEqual(contents);
  });

  it("refuse a wrong passphrase and any changed byte, whether in the header, the contents or the tag", async () => {
    const archive = await sealBackup(contents, PASSPHRASE);
    const refusal = "the passphrase is wrong, or the file was changed or damaged";
    await expect(openBackup(archive, "another long passphrase")).rejects.toThrow(refusal);
    // A salt byte, a nonce byte, a contents byte, the last tag byte.
    for (const index of [20, 40, archive.length - 30, archive.length - 1]) {
      const changed = Buffer.from(archive);
      changed[index]! ^= 0x01;
      await expect(openBackup(changed, PASSPHRASE)).rejects.toThrow(refusal);
    }
    await expect(openBackup(archive.subarray(0, archive.length - 5), PASSPHRASE)).rejects.toThrow(refusal);
  });

  it("name what is wrong with a file that is not an archive, and with a short passphrase", async () => {
    await expect(
      openBackup(Buffer.from("PGDMP not an archive at all, just text"), PASSPHRASE),
    ).rejects.toThrow("not a NaijaLink backup archive");
    await expect(sealBackup(contents, "short")).rejects.toBeInstanceOf(BackupArchiveError);
  });
});
