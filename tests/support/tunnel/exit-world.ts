// The tunnel tests' exit as an operator prepares it and a customer uses it: the steps of
// tests/tunnel/exit-setup.test.ts, shared by the other tunnel files as their starting point.
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { eq, ne } from "drizzle-orm";
import { subscriptions, vpnServers } from "#server/db/schema/index.ts";
import { issueTestDevice } from "../vpn.ts";
import { EXIT_CONTROL_ADDRESS, EXIT_PUBLIC, ExitNetwork, POOL_V4, POOL_V6 } from "./exit-network.ts";
import { inNs, run, waitFor } from "./host.ts";

export * from "./exit-network.ts";

/** A customer whose device's config carries traffic through the exit (`connectCustomer`). */
export interface ConnectedCustomer {
  deviceId: string;
  downloadToken: string;
  publicKey: string;
  configText: string;
}

/** The namespaces, links, internet host and control plane of the tunnel tests; no exit set up. */
export class ExitWorld extends ExitNetwork {
  /** `npm run vpn -- add-server` for the exit, as an operator types it; answers the node token. */
  async addServerWithCli(): Promise<string> {
    const cli = await run(
      [
        process.execPath,
        "--import",
        "tsx",
        "scripts/vpn.ts",
        "add-server",
        "--name",
        this.serverName,
        "--endpoint",
        `${EXIT_PUBLIC}:51820`,
        "--ipv4",
        POOL_V4,
        "--ipv6",
        POOL_V6,
        "--dns",
        "192.0.2.53",
        "--url",
        this.apiUrl,
      ],
      { timeoutMs: 60_000, env: { ...process.env, DATA_DIR: this.app.dataDir, LOG_LEVEL: "warn" } },
    ).catch((error: Error) => {
      throw new Error(`npm run vpn -- add-server failed: ${error.message}`);
    });
    const nodeToken = cli.trim().split("\n")[1]!.trim();
    this.tokenFile = path.join(this.workDir, "node-token");
    await fs.writeFile(this.tokenFile, nodeToken, { mode: 0o600 });
    return nodeToken;
  }

  /** The host as an operator prepares it: one command, with what the control plane says of the server. */
  runSetup(): Promise<string> {
    this.setupArgs = [
      "setup",
      "--api",
      this.apiUrl,
      "--token-file",
      this.tokenFile,
      "--interface",
      this.link.exitWg,
      "--listen-port",
      "51820",
      "--egress",
      `${this.link.exitInet},${this.link.exitRoot}`,
      "--exit-addresses",
      EXIT_CONTROL_ADDRESS,
      "--state-file",
      this.stateFile,
      "--no-systemd",
    ];
    return this.bundled(this.setupArgs);
  }

  startAgent() {
    this.agent = this.start(
      inNs(this.ns.exit, [
        process.execPath,
        this.bundle,
        "--api",
        this.apiUrl,
        "--token-file",
        this.tokenFile,
        "--interface",
        this.link.exitWg,
        "--private-key-file",
        path.join(this.workDir, "exit", "private.key"),
        "--poll-ms",
        "300",
        "--reconcile-ms",
        "1500",
        "--status-ms",
        "2000",
        "--exit-addresses",
        EXIT_CONTROL_ADDRESS,
      ]),
      { collect: (text) => (this.agentOutput += text) },
    );
  }

  /** Waits for the agent to register the key it generated; then only the exit's server takes devices. */
  async waitForRegistration() {
    const db = this.app.services.db;
    const [server] = await waitFor(
      "the agent to register the node's public key",
      async () => {
        const rows = await db.select().from(vpnServers).where(eq(vpnServers.name, this.serverName));
        return rows[0]?.publicKey ? rows : undefined;
      },
      30_000,
      200,
    );
    await db.update(vpnServers).set({ status: "draining" }).where(ne(vpnServers.name, this.serverName));
    return server!;
  }

  /** The exit registered, set up and its agent running (what exit-setup's first test checks). */
  async prepareExit() {
    await this.addServerWithCli();
    await this.runSetup();
    this.startAgent();
    await this.waitForRegistration();
  }

  /** A Basic subscription of `email` and a device issued for it on the exit's server. */
  async issueDevice(email: string) {
    const [subscription] = await this.app.services.db
      .insert(subscriptions)
      .values({
        planId: "basic-monthly",
        planType: "basic",
        deviceLimit: 1,
        customerEmail: email,
        expiresAt: new Date(Date.now() + 30 * 86_400_000),
        checkoutSessionId: `cs_tunnel_${this.id}_${crypto.randomUUID()}`,
      })
      .returning();
    return issueTestDevice(this.app.services, subscription!);
  }

  /** A customer's device downloaded and brought up in the client namespace, carrying traffic. */
  async connectCustomer(email: string): Promise<ConnectedCustomer> {
    const issued = await this.issueDevice(email);
    const configText = await (await fetch(`${this.apiUrl}/api/configs/${issued.downloadToken}`)).text();
    await this.bringUpClient(this.ns.client, this.link.clientWg, configText);
    const publicKey = issued.device.publicKey;
    await waitFor(
      "the agent to add the device's peer",
      async () => (await this.exitPeers()).includes(publicKey),
      10_000,
    );
    await waitFor(
      "a reply through the tunnel",
      () => this.probe(2).then((body) => body ?? undefined),
      20_000,
      200,
    );
    return { deviceId: issued.device.id, downloadToken: issued.downloadToken, publicKey, configText };
  }
}
