import crypto from "node:crypto";

// DER headers of X25519 keys; the raw 32-byte key follows them. Exporting DER instead of JWK
// avoids a deadlock seen on Node 20 after a few thousand JWK exports (DESIGN.md §6).
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
