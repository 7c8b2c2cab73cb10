import { and, eq, isNull } from "drizzle-orm";
import type { Executor } from "#server/db/client.ts";
import { devices, type Device } from "#server/db/schema/index.ts";
import type { Sealer } from "#server/secrets.ts";
import { generateToken, hashToken } from "#server/secrets.ts";
import { generateKeyPair, generatePresharedKey } from "./keys.ts";

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
