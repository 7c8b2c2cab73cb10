import crypto from "node:crypto";
import { promisify } from "node:util";

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

const generateDerKeyPair = promisify(crypto.generateKeyPair);

async function generateKeyPairOffThread(): Promise<WireGuardKeyPair> {
  const { privateKey, publicKey } = await generateDerKeyPair("x25519", {
    privateKeyEncoding: { format: "der", type: "pkcs8" },
    publicKeyEncoding: { format: "der", type: "spki" },
  });
  return {
    privateKey: privateKey.subarray(-32).toString("base64"),
    publicKey: publicKey.subarray(-32).toString("base64"),
  };
}

const READY_KEY_PAIRS = 256;
const readyKeyPairs: WireGuardKeyPair[] = [];
let refilling: Promise<void> | undefined;

/**
 * Keys for a new device. Key generation (~0.2 ms each) runs ahead of demand on libuv's thread
 * pool, so a burst of purchases takes ready keys instead of computing them on the event loop
 * while it holds the VPN server's lock; when the pool is empty it falls back to generating one
 * here. Each pair is handed out once and never kept after.
 */
export function takeKeyPair(): WireGuardKeyPair {
  const pair = readyKeyPairs.pop() ?? generateKeyPair();
  if (readyKeyPairs.length < READY_KEY_PAIRS / 2) void refillKeyPairs();
  return pair;
}

/** Fills the pool of ready key pairs (at start-up, and whenever it runs low). */
export function refillKeyPairs(): Promise<void> {
  refilling ??= (async () => {
    try {
      while (readyKeyPairs.length < READY_KEY_PAIRS) {
        readyKeyPairs.push(...(await Promise.all(Array.from({ length: 16 }, generateKeyPairOffThread))));
      }
    } finally {
      refilling = undefined;
    }
  })();
  return refilling;
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
