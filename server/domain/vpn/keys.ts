import crypto from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { Executor } from "#server/db/client.ts";
import { devices, type Device } from "#server/db/schema/index.ts";
import { generateToken, hashToken, type Sealer } from "#server/secrets.ts";

// WireGuard keys: making them, checking them, and giving a live device new ones.

// DER headers of X25519 keys; the raw 32-byte key follows them. Exporting DER instead of JWK
// avoids a deadlock seen on Node 20 after a few thousand JWK exports (docs/product.md §11.7).
const PKCS8_PREFIX = Buffer.from("302e020100300506032b656e04220420", "hex");

export interface WireGuardKeyPair {
  privateKey: string;
  publicKey: string;
}

export function generateKeyPair(): WireGuardKeyPair {
  const { privateKey, publicKey } = crypto.generateKeyPairSync("x25519");
  return {
    privateKey: privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32).toString("base64"),
    publicKey: publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("base64"),
  };
}

/** The same public key `wg pubkey` derives from a base64 private key. */
export function publicKeyFromPrivate(privateKeyBase64: string): string {
  const raw = Buffer.from(privateKeyBase64, "base64");
  if (raw.length !== 32) throw new Error("A WireGuard private key is 32 bytes");
  const privateKey = crypto.createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, raw]),
    format: "der",
    type: "pkcs8",
  });
  return crypto
    .createPublicKey(privateKey)
    .export({ format: "der", type: "spki" })
    .subarray(-32)
    .toString("base64");
}

export function generatePresharedKey(): string {
  return crypto.randomBytes(32).toString("base64");
}

export function isWireGuardKey(value: string): boolean {
  return /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/.test(value);
}

/**
 * New keys for a live device: same slot, server and addresses; a fresh key pair, preshared key
 * and download link. The `devices` trigger logs the old public key (it leaves the node's peer
 * set) and the new one (it enters) under one new version, so the old config stops
 * working at the node's next sync. The old download link becomes unknown (404): whoever held it
 * must not get the new config. Undefined when the device is revoked or does not exist.
 */
export async function replaceDeviceKeys(
  executor: Executor,
  sealer: Sealer,
  deviceId: string,
  now = new Date(),
): Promise<Device | undefined> {
  const keys = generateKeyPair();
  const downloadToken = generateToken();
  const [device] = await executor
    .update(devices)
    .set({
      publicKey: keys.publicKey,
      privateKeySealed: sealer.seal(keys.privateKey),
      presharedKeySealed: sealer.seal(generatePresharedKey()),
      downloadTokenHash: hashToken(downloadToken),
      downloadTokenSealed: sealer.seal(downloadToken),
      // The new config has not been handed over yet: its first handshake is still to come.
      lastHandshakeAt: null,
      // The new key is a new peer whose counters start at zero; the period's sums stay (decision 073).
      transferCountersServerId: null,
      transferCountersRx: null,
      transferCountersTx: null,
      updatedAt: now,
    })
    .where(and(eq(devices.id, deviceId), isNull(devices.revokedAt)))
    .returning();
  return device;
}
