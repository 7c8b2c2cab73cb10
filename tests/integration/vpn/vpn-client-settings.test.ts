// What a server's client configs say (issue 22, decision 090): `npm run vpn` set-mtu, set-ports and
// set-dns through the admin API, validated and refused without change when wrong; configs
// downloaded afterwards carry them (a new MTU once the node reports it applied, decision 129), the
// node's held poll wakes with the new settings version, and the port-443 variant of a device.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vpnServers } from "#server/db/schema/index.ts";
import { rotateNodeToken } from "#server/domain/vpn/servers.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { adminCommand } from "../../support/vpn-admin.ts";
import {
  addOnlyActiveServer,
  addTestSubscription,
  configFields,
  issueTestDevice,
} from "../../support/vpn.ts";
import { queuedEmails } from "../../support/staff.ts";

describe.each(databaseKinds)("client settings of VPN servers on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind, env: { VPN_CLIENT_MTU: "1360" } });
  });
  afterAll(async () => {
    await app?.close();
  });

  const command = async (body: Record<string, unknown>) => {
    const response = await adminCommand(app, body);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const serverRow = async (id: string) =>
    (await app.services.db.select().from(vpnServers).where(eq(vpnServers.id, id)))[0]!;
  /** A server whose node has a token, and a device on it (the only server that takes devices). */
  async function serverWithDevice(name: string, octet: number) {
    const server = await addOnlyActiveServer(app.services.db, { name, octet });
    const { nodeToken } = (await rotateNodeToken(app.services.db, name))!;
    const device = await issueTestDevice(
      app.services,
      await addTestSubscription(app.services.db, { customerEmail: `${name}@example.com` }),
    );
    expect(device.server.id).toBe(server.id);
    return { server, nodeToken, device };
  }
  const download = async (token: string, query = "") => {
    const response = await app.request(`/api/configs/${token}${query}`);
    return { response, text: response.ok ? await response.text() : "" };
  };
  const peers = (nodeToken: string, query = "") =>
    app.request(`/api/nodes/peers${query}`, { headers: { authorization: `Bearer ${nodeToken}` } });
  /** The node's agent reporting the server's current settings version applied. */
  const reportApplied = async (server: { id: string; publicKey: string | null }, nodeToken: string) => {
    const { settingsVersion } = await serverRow(server.id);
    const response = await app.request("/api/nodes/status", {
      json: { publicKey: server.publicKey, peers: [], settings: { version: settingsVersion, mtu: 1280 } },
      headers: { authorization: `Bearer ${nodeToken}` },
    });
    expect(response.status).toBe(200);
  };
  const nodeServer = async (nodeToken: string) =>
    (await (await peers(nodeToken)).json()) as { server: Record<string, unknown>; version: string };

  it("gives a new server VPN_CLIENT_MTU, port 443 besides its endpoint's, and its node's resolver", async () => {
    const added = await command({
      command: "add-server",
      name: "ng-new-settings",
      endpoint: "203.0.113.30:51820",
      ipv4: "10.30.0.0/24",
      ipv6: "fd30::/64",
    });
    expect(added.status).toBe(200);
    const onPort443 = await command({
      command: "add-server",
      name: "ng-on-443",
      endpoint: "203.0.113.31:443",
      ipv4: "10.31.0.0/24",
      ipv6: "fd31::/64",
    });
    expect(onPort443.status).toBe(200);
    const list = (await command({ command: "list-servers" })).body.servers as Array<Record<string, unknown>>;
    expect(list.find((server) => server.name === "ng-new-settings")).toMatchObject({
      clientMtu: 1360,
      alternatePorts: [443],
      nodeResolver: true,
    });
    expect(list.find((server) => server.name === "ng-on-443")).toMatchObject({ alternatePorts: [] });
  });

  it("set-mtu refuses a bad or unchanged MTU and an unknown server, changing nothing", async () => {
    const { server } = await serverWithDevice("ng-mtu-refusals", 40);
    for (const mtu of [1279, 1421, 1500, 1400.5, "1400", null]) {
      const refused = await command({ command: "set-mtu", server: server.name, mtu });
      expect(refused.status, String(mtu)).toBe(400);
      expect(refused.body).toMatchObject({
        error: "Invalid request",
        message: expect.stringMatching(/mtu/i),
      });
    }
    expect((await command({ command: "set-mtu", server: server.name })).status).toBe(400);
    expect((await command({ command: "set-mtu", server: server.name, mtu: 1300, extra: 1 })).status).toBe(
      400,
    );
    expect((await command({ command: "set-mtu", server: "no-such-server", mtu: 1300 })).status).toBe(404);
    const same = await command({ command: "set-mtu", server: server.name, mtu: 1280 });
    expect(same.status).toBe(409);
    expect(same.body.message).toBe("VPN server ng-mtu-refusals already gives its clients MTU 1280.");
    const row = await serverRow(server.id);
    expect(row.clientMtu).toBe(1280);
    expect(row.clientConfigChangedAt).toEqual(server.clientConfigChangedAt);
  });

  it("set-mtu wakes the node's held poll with the new MTU; configs carry it once the node reports it applied", async () => {
    const { server, nodeToken, device } = await serverWithDevice("ng-mtu", 41);
    expect(configFields((await download(device.downloadToken)).text).MTU).toBe("1280");
    const { version, server: before } = await nodeServer(nodeToken);
    const held = peers(nodeToken, `?since=${version}&wait=20`);
    const changed = await command({ command: "set-mtu", server: server.id, mtu: 1400 });
    expect(changed.status).toBe(200);
    expect(changed.body.server).toMatchObject({
      name: "ng-mtu",
      clientMtu: 1400,
      nodeSettings: { state: "unreported", nodeMtu: 1280 },
    });
    const answer = (await (await held).json()) as { kind: string; server: Record<string, unknown> };
    const settingsVersion = (before.settingsVersion as number) + 1;
    expect(answer).toMatchObject({
      kind: "changes",
      server: { mtu: 1400, alternatePorts: [443], settingsVersion },
    });
    // Pending: configs keep the MTU the node carries, and nobody is told to download again.
    expect(configFields((await download(device.downloadToken)).text).MTU).toBe("1280");
    const pending = await serverRow(server.id);
    expect(pending.clientConfigChangedAt).toEqual(server.clientConfigChangedAt);

    const report = (settings: Record<string, unknown>) =>
      app.request("/api/nodes/status", {
        method: "POST",
        headers: { authorization: `Bearer ${nodeToken}`, "content-type": "application/json" },
        body: JSON.stringify({ publicKey: server.publicKey, peers: [], settings }),
      });
    expect(
      (await report({ version: settingsVersion, mtu: 1280, error: "ip: Operation not permitted" })).status,
    ).toBe(200);
    const failed = (await command({ command: "list-servers" })).body.servers as Array<
      Record<string, unknown>
    >;
    expect(failed.find((row) => row.name === "ng-mtu")).toMatchObject({
      nodeSettings: { state: "failed", error: "ip: Operation not permitted", nodeMtu: 1280 },
    });
    expect(configFields((await download(device.downloadToken)).text).MTU).toBe("1280");

    expect((await report({ version: settingsVersion, mtu: 1400 })).status).toBe(200);
    const applied = await serverRow(server.id);
    expect(applied).toMatchObject({ appliedSettingsVersion: settingsVersion, appliedClientMtu: 1400 });
    expect(applied.settingsApplyError).toBeNull();
    expect(configFields((await download(device.downloadToken)).text).MTU).toBe("1400");
    expect(applied.clientConfigChangedAt.getTime()).toBeGreaterThan(server.clientConfigChangedAt.getTime());
    const listed = (await command({ command: "list-servers" })).body.servers as Array<
      Record<string, unknown>
    >;
    expect(listed.find((row) => row.name === "ng-mtu")).toMatchObject({
      nodeSettings: { state: "applied", appliedVersion: settingsVersion, nodeMtu: 1400 },
    });
  });

  it("set-ports takes up to 4 other ports, refuses the endpoint's own, repeats and bad ports, and tells the node", async () => {
    const { server, nodeToken, device } = await serverWithDevice("ng-ports", 42);
    for (const ports of [[51820], [443, 443], [0], [65536], [1, 2, 3, 4, 5], ["443"], "443"]) {
      const refused = await command({ command: "set-ports", server: server.name, ports });
      expect(refused.status, JSON.stringify(ports)).toBe(400);
      expect(refused.body.error).toBe("Invalid request");
    }
    expect((await command({ command: "set-ports", server: server.name, ports: [443] })).status).toBe(409);
    expect((await serverRow(server.id)).alternatePorts).toEqual([443]);

    const before = (await serverRow(server.id)).clientConfigChangedAt;
    const added = await command({ command: "set-ports", server: server.name, ports: [443, 53] });
    expect(added.status).toBe(200);
    expect(added.body.server).toMatchObject({ alternatePorts: [443, 53] });
    expect((await nodeServer(nodeToken)).server).toMatchObject({ alternatePorts: [443, 53] });
    // Configs offer the new port only once the node reports it redirects it (decision 133).
    expect((await download(device.downloadToken, "?port=53")).response.status).toBe(404);
    await reportApplied(server, nodeToken);
    expect(configFields((await download(device.downloadToken, "?port=53")).text).Endpoint).toBe(
      "203.0.113.10:53",
    );
    // Adding a port changes no config anyone holds.
    expect((await serverRow(server.id)).clientConfigChangedAt).toEqual(before);

    const removed = await command({ command: "set-ports", server: server.name, ports: [] });
    expect(removed.status).toBe(200);
    // The node still redirects 443 until it applies the change: configs still offer it.
    expect((await download(device.downloadToken, "?port=443")).response.status).toBe(200);
    expect((await serverRow(server.id)).clientConfigChangedAt).toEqual(before);
    await reportApplied(server, nodeToken);
    expect((await download(device.downloadToken, "?port=443")).response.status).toBe(404);
    // Taking one away outdates the configs that may use it, once the node has.
    expect((await serverRow(server.id)).clientConfigChangedAt.getTime()).toBeGreaterThan(before.getTime());
  });

  it("set-endpoint refuses a port the server lists as alternate", async () => {
    const { server } = await serverWithDevice("ng-endpoint-port", 43);
    const refused = await command({
      command: "set-endpoint",
      server: server.name,
      endpoint: "203.0.113.10:443",
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("443 is an alternate port of ng-endpoint-port");
    expect((await serverRow(server.id)).endpoint).toBe("203.0.113.10:51820");
  });

  it("set-dns switches configs between the node's resolver and the operator's, refusing bad addresses", async () => {
    const { server, nodeToken, device } = await serverWithDevice("ng-dns", 44);
    expect(configFields((await download(device.downloadToken)).text).DNS).toBe("10.44.0.1, fd44::1");
    for (const dns of [
      "resolver.example",
      "",
      "1.1.1.1/32",
      "1.1.1.1\nPostUp = touch /tmp/x",
      "1.1.1.1, 1.0.0.1, 8.8.8.8, 8.8.4.4, 9.9.9.9",
      ["1.1.1.1"],
    ]) {
      const refused = await command({ command: "set-dns", server: server.name, dns });
      expect(refused.status, JSON.stringify(dns)).toBe(400);
    }
    const optOut = await command({
      command: "set-dns",
      server: server.name,
      dns: "9.9.9.9,2620:FE::FE",
    });
    expect(optOut.status).toBe(200);
    expect(optOut.body.server).toMatchObject({ nodeResolver: false, dns: "9.9.9.9, 2620:fe::fe" });
    // The node's resolver answers until the node stops it: configs name it until then (decision 133).
    expect(configFields((await download(device.downloadToken)).text).DNS).toBe("10.44.0.1, fd44::1");
    const before = (await serverRow(server.id)).clientConfigChangedAt;
    await reportApplied(server, nodeToken);
    expect(configFields((await download(device.downloadToken)).text).DNS).toBe("9.9.9.9, 2620:fe::fe");
    expect((await serverRow(server.id)).clientConfigChangedAt.getTime()).toBeGreaterThan(before.getTime());
    expect((await nodeServer(nodeToken)).server).toMatchObject({ resolver: false });
    expect(
      (await command({ command: "set-dns", server: server.name, dns: "9.9.9.9, 2620:fe::fe" })).status,
    ).toBe(409);

    expect((await command({ command: "set-dns", server: server.name, dns: "node" })).status).toBe(200);
    expect(configFields((await download(device.downloadToken)).text).DNS).toBe("9.9.9.9, 2620:fe::fe");
    await reportApplied(server, nodeToken);
    expect(configFields((await download(device.downloadToken)).text).DNS).toBe("10.44.0.1, fd44::1");
    expect((await nodeServer(nodeToken)).server).toMatchObject({
      resolver: true,
      dnsCheckZone: "dns-check.internal",
    });
  });

  it("serves the same device on an alternate port at ?port=, as a file and a QR code, and nothing else", async () => {
    const { device } = await serverWithDevice("ng-variant", 45);
    const usual = await download(device.downloadToken);
    const variant = await download(device.downloadToken, "?port=443");
    expect(variant.response.status).toBe(200);
    expect(variant.response.headers.get("content-disposition")).toBe(
      'attachment; filename="NaijaLink1-443.conf"',
    );
    expect(configFields(variant.text).Endpoint).toBe("203.0.113.10:443");
    expect(variant.text.replace(":443\n", ":51820\n")).toBe(usual.text);
    const qr = await app.request(`/api/configs/${device.downloadToken}/qr.svg?port=443`);
    expect(qr.status).toBe(200);
    expect(await qr.text()).toContain("<svg");

    for (const [query, status] of [
      ["?port=8443", 404],
      ["?port=51820", 404],
      ["?port=abc", 400],
      ["?port=0443", 400],
      ["?port=443&port=53", 404],
      ["?port=443&download=1", 400],
    ] as const) {
      const response = await app.request(`/api/configs/${device.downloadToken}${query}`);
      expect(response.status, query).toBe(status);
      expect(await response.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    }
    expect((await app.request(`/api/configs/${device.downloadToken}/qr.svg?port=8443`)).status).toBe(404);
  });

  it("offers the port-443 variant in the config e-mail: the same device, no other slot", async () => {
    const { server, device } = await serverWithDevice("ng-mail-offer", 46);
    const [email] = (await queuedEmails(app, "ng-mail-offer@example.com")).filter(
      (queued) => queued.kind === "vpn-config",
    );
    expect(email!.text).toContain("Can't connect on this network? Use port 443");
    expect(email!.text).toContain(`http://localhost:3000/api/configs/${device.downloadToken}?port=443`);
    expect((await serverRow(server.id)).liveDevices).toBe(1);
  });
});
