// Traffic through a downloaded config's tunnel: the internet host sees the exit's address, the
// first handshake activates the device, customers cannot reach each other, and /check through the
// tunnel names the exit (decision 069). The world: tests/support/tunnel/exit-world.ts.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devices, vpnServers } from "#server/db/schema/index.ts";
import { revokeDevice } from "#server/domain/vpn/devices.ts";
import { inNs, run, tunnelUnavailableReason, waitFor } from "../support/tunnel/host.ts";
import {
  CLIENT_PUBLIC,
  EXIT_CONTROL_ADDRESS,
  EXIT_INET,
  EXIT_PUBLIC,
  ExitWorld,
  fieldOf,
  OTHER_LINK,
} from "../support/tunnel/exit-world.ts";

const reason = tunnelUnavailableReason();
const mustRun = process.env.CI === "true";
if (reason && !mustRun) console.warn(`[tunnel] skipped: ${reason}`);

describe.skipIf(reason !== null && !mustRun)(
  "traffic through a WireGuard tunnel from a downloaded config",
  () => {
    const world = new ExitWorld();
    const { ns, link } = world;

    beforeAll(async () => {
      if (reason) throw new Error(`The tunnel test must run under CI=true but cannot: ${reason}`);
      await world.setUp();
      await world.prepareExit();
    }, 180_000);
    afterAll(() => world.tearDown(), 60_000);

    it("carries the client's traffic to the internet host, which sees the exit's address", async () => {
      const db = world.app.services.db;
      const issued = await world.issueDevice("buyer@example.com");
      const deviceId = issued.device.id;
      const clientPublicKey = issued.device.publicKey;
      expect(issued.server.name).toBe(world.serverName);

      // The customer opens the e-mailed link: a plain GET, which does not count as activation.
      const download = await fetch(`${world.apiUrl}/api/configs/${issued.downloadToken}`);
      expect(download.status).toBe(200);
      expect(download.headers.get("content-disposition")).toBe('attachment; filename="NaijaLink1.conf"');
      const configText = await download.text();
      const [downloaded] = await db.select().from(devices).where(eq(devices.id, deviceId));
      expect(downloaded!.activatedAt).toBeNull();

      expect(fieldOf(configText, "Endpoint")).toBe(`${EXIT_PUBLIC}:51820`);
      await world.bringUpClient(ns.client, link.clientWg, configText);

      await waitFor(
        "the agent to add the device's peer",
        async () => (await world.exitPeers()).includes(clientPublicKey),
        10_000,
      );
      const seen = await waitFor(
        "a reply through the tunnel",
        () => world.probe(2).then((body) => body ?? undefined),
        20_000,
        200,
      );
      expect(seen).toBe(EXIT_INET);
      expect(seen).not.toBe(CLIENT_PUBLIC);

      // The agent's next status report carries the first handshake: that activates the device.
      const [device] = await waitFor(
        "the agent to report the device's first handshake",
        async () => {
          const rows = await db.select().from(devices).where(eq(devices.id, deviceId));
          return rows[0]?.activatedAt ? rows : undefined;
        },
        10_000,
        200,
      );
      expect(device!.activatedVia).toBe("handshake");
      expect(device!.activatedAt!.getTime()).toBeLessThanOrEqual(Date.now());

      // Its reports carry the peer's transfer counters too: the device's data this period (decision 073).
      const [counted] = await waitFor(
        "the agent to report the device's transfer",
        async () => {
          const rows = await db.select().from(devices).where(eq(devices.id, deviceId));
          return rows[0]!.transferRxBytes > 0 && rows[0]!.transferTxBytes > 0 ? rows : undefined;
        },
        10_000,
        200,
      );
      expect(counted!.transferPeriodStart).not.toBeNull();
    });

    it("does not carry one customer's traffic to another customer's device", async () => {
      const other = await world.issueDevice("other@example.com");
      const otherText = await (await fetch(`${world.apiUrl}/api/configs/${other.downloadToken}`)).text();
      // The other customer reaches the exit's public address over its own link.
      await run(inNs(ns.other, ["ip", "route", "add", `${EXIT_PUBLIC}/32`, "via", OTHER_LINK.exit]));
      await world.bringUpClient(ns.other, link.otherWg, otherText);
      const otherAddress = fieldOf(otherText, "Address").split(",")[0]!.trim().split("/")[0]!;
      await world.startEcho(ns.other, otherAddress, "the other customer's echo server");
      const seen = await waitFor(
        "the other customer's tunnel",
        () => world.probe(2, ns.other).then((body) => body ?? undefined),
        20_000,
        200,
      );
      expect(seen).toBe(EXIT_INET);

      // The exit itself reaches the other device through the tunnel; the first customer does not.
      expect(await world.probe(2, ns.exit, `${otherAddress}:8080`)).toBe("10.99.0.1");
      expect(await world.probe(2, ns.client, `${otherAddress}:8080`)).toBeNull();
      expect(await world.probe(2)).toBe(EXIT_INET);
      await revokeDevice(world.app.services.db, other.device.id);
    });

    it("answers /check through the tunnel with the exit server's name, and not connected from outside", async () => {
      const db = world.app.services.db;
      await waitFor(
        "the agent to report its exit address",
        async () => {
          const [server] = await db.select().from(vpnServers).where(eq(vpnServers.name, world.serverName));
          return server?.exitAddresses.includes(EXIT_CONTROL_ADDRESS) || undefined;
        },
        10_000,
        200,
      );
      const script = `fetch("${world.apiUrl}/check",{signal:AbortSignal.timeout(5000)}).then(r=>r.text()).then(t=>process.stdout.write(t),()=>process.exit(3))`;
      const through = await run(inNs(ns.client, [process.execPath, "-e", script]), { timeoutMs: 15_000 });
      expect(through).toContain("Yes, you are connected through Nigeria");
      expect(through).toContain(world.serverName);
      expect(through).toContain(EXIT_CONTROL_ADDRESS);

      const outside = await (await fetch(`${world.apiUrl}/check`)).text();
      expect(outside).toContain("No, you are not connected through Nigeria");
      expect(outside).not.toContain(world.serverName);
    });
  },
);
