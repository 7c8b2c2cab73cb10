import { eq } from "drizzle-orm";
import {
  devices,
  subscriptions,
  vpnServers,
  type Subscription,
  type VpnServer,
} from "#server/db/schema/index.ts";
import type { Database, Executor } from "#server/db/client.ts";
import type { EmailRequest } from "#server/domain/mail/email-data.ts";
import type { MailTransport, OutgoingEmail } from "#server/domain/mail/transport.ts";
import { issueDevice, type IssuedDevice, type VpnServices } from "#server/domain/vpn/devices.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import { fullPeerSet } from "#server/domain/vpn/node-peers.ts";
import { addVpnServer } from "#server/domain/vpn/servers.ts";
import type { Sealer } from "#server/secrets.ts";

/**
 * A VPN server for tests (in Lagos unless told), with a fresh key: pools 10.{octet}.0.0/{ipv4Prefix} and fd{octet}::/64
 * (a /29 holds 5 devices, for tests of a full pool).
 */
export async function addTestVpnServer(
  executor: Executor,
  {
    name = "ng-lagos-1",
    region = "ng-lagos",
    octet = 66,
    ipv4Prefix = 16,
  }: { name?: string; region?: string; octet?: number; ipv4Prefix?: number } = {},
) {
  const { server } = await addVpnServer(executor, {
    name,
    region,
    endpoint: "203.0.113.10:51820",
    publicKey: generateKeyPair().publicKey,
    ipv4Cidr: `10.${octet}.0.0/${ipv4Prefix}`,
    ipv6Cidr: `fd${octet}::/64`,
    dns: "1.1.1.1",
  });
  return server;
}

/**
 * For tests about allocation, devices or purchases that add servers of their own: the demo's
 * development server then stands for a real server that already carries buyers (a development
 * server is never chosen once a real one exists).
 */
export async function treatDevelopmentServerAsReal(executor: Executor): Promise<void> {
  await executor.update(vpnServers).set({ development: false }).where(eq(vpnServers.development, true));
}

let subscriptionCounter = 0;

/** A paid-up subscription as fulfilment records it (Pro Monthly, 3 devices, 30 days) unless told otherwise. */
export async function addTestSubscription(
  executor: Executor,
  values: Partial<typeof subscriptions.$inferInsert> = {},
): Promise<Subscription> {
  subscriptionCounter += 1;
  const [subscription] = await executor
    .insert(subscriptions)
    .values({
      planId: "pro-monthly",
      planType: "pro_monthly",
      deviceLimit: 3,
      customerEmail: "buyer@example.com",
      expiresAt: new Date(Date.now() + 30 * 86_400_000),
      checkoutSessionId: `cs_test_support_${subscriptionCounter}_${process.pid}_${Date.now()}`,
      ...values,
    })
    .returning();
  return subscription!;
}

/** An issued device and the token of its download link, in the clear (as its e-mail carries it). */
export interface TestDevice extends IssuedDevice {
  downloadToken: string;
}

/** Issues the subscription's next device (and queues its config e-mail) in a transaction of its own. */
export async function issueTestDevice(
  services: VpnServices & { db: Database; mail: { wake(): void } },
  subscription: Subscription,
): Promise<TestDevice> {
  const issued = await services.db.transaction((tx) => issueDevice(tx, services, subscription));
  services.mail.wake();
  return { ...issued, downloadToken: services.sealer.unseal(issued.device.downloadTokenSealed) };
}

/** What tests give issueDevice when they run on a bare database instead of the app's services. */
export function bareVpnServices(sealer: VpnServices["sealer"]): VpnServices & { queued: EmailRequest[] } {
  const queued: EmailRequest[] = [];
  return {
    config: {
      BRAND_NAME: "NaijaLink",
      PUBLIC_URL: "http://localhost:3000",
      SUPPORT_EMAIL: "support@naijalink.example",
    },
    sealer,
    logger: { error: () => {} },
    queued,
    mail: {
      async enqueue(_executor, email) {
        queued.push(email);
        return `queued-${queued.length}`;
      },
    },
  };
}

/** A device row as stored now. */
export async function deviceRow(executor: Executor, id: string) {
  const [row] = await executor.select().from(devices).where(eq(devices.id, id));
  return row!;
}

/** A mail transport that keeps what it is asked to send. */
export function captureTransport(): MailTransport & { sent: OutgoingEmail[] } {
  const sent: OutgoingEmail[] = [];
  return {
    description: "capture",
    sent,
    async send(email) {
      sent.push(email);
    },
    close() {},
  };
}

/** The public keys a server's node must carry now: its full desired peer set. */
export async function desiredPeerKeys(
  executor: Executor,
  sealer: Sealer,
  server: VpnServer,
  now = new Date(),
): Promise<string[]> {
  const set = await fullPeerSet(executor, sealer, server, now);
  if (set.kind !== "full") throw new Error("expected the full peer set");
  return set.peers.map((peer) => peer.publicKey);
}

/** The `Key = value` lines of a WireGuard config, by key. */
export function configFields(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split("\n")
      .filter((line) => line.includes(" = "))
      .map((line) => line.split(" = ") as [string, string]),
  );
}

/** A test server (as `addTestVpnServer`) that alone takes new devices: every other active one drains. */
export async function addOnlyActiveServer(
  executor: Executor,
  options: Parameters<typeof addTestVpnServer>[1] = {},
): Promise<VpnServer> {
  const server = await addTestVpnServer(executor, options);
  await executor.update(vpnServers).set({ status: "draining" }).where(eq(vpnServers.status, "active"));
  await executor.update(vpnServers).set({ status: "active" }).where(eq(vpnServers.id, server.id));
  return server;
}
