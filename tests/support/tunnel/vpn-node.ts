// The VPN node of a HostileNetwork as an operator runs it: the server registered with the running
// app (the admin API `npm run vpn` uses), the host prepared by the bundled agent's `setup`, then
// the bundled agent itself, in the node's namespace, against the app in the root namespace.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { buildAgent } from "../../../scripts/build-agent.js";
import { giveNodeItsOwnUnbound, inNs, run, waitFor } from "./host.ts";
import { ADDRESS, type HostileNetwork } from "./hostile-network.ts";

/** The app as the test or the bench started it, listening on the control link's root address. */
export interface RunningApp {
  url: string;
  dataDir: string;
}

export class VpnNode {
  private agent: ChildProcess | undefined;
  /** What the agent printed: its log lines. */
  agentOutput = "";
  /** The resolver's log (unbound writes it in this run's directory). */
  unboundLog = "";
  private setupArgs: string[] = [];
  private bundle = "";
  readonly serverName: string;

  constructor(
    readonly network: HostileNetwork,
    readonly app: RunningApp,
    /** More of the agent's own flags (e.g. `--streaming-check-ms`). */
    private readonly agentArgs: string[] = [],
  ) {
    this.serverName = `hostile-${network.tag}-${process.pid % 100_000}`;
  }

  /** A command of the admin API (`npm run vpn`), authenticated with the app's admin token. */
  async admin<T>(command: Record<string, unknown>): Promise<T> {
    const { token } = JSON.parse(
      await fs.readFile(path.join(this.app.dataDir, "vpn-admin.json"), "utf8"),
    ) as {
      token: string;
    };
    const response = await fetch(`${this.app.url}/api/nodes/servers`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(command),
    });
    if (response.status !== 200)
      throw new Error(`${command.command} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  }

  /** Registers the server, runs setup, starts the agent; resolves once the node carries its peers. */
  async start(): Promise<void> {
    const { network } = this;
    const workDir = path.join(network.workDir, "node");
    await fs.mkdir(workDir, { recursive: true });
    const unbound = await giveNodeItsOwnUnbound(network.ns.node, path.join(workDir, "unbound"));
    this.unboundLog = unbound.logFile;
    const added = await this.admin<{ nodeToken: string }>({
      command: "add-server",
      name: this.serverName,
      endpoint: `${ADDRESS.nodePublic}:51820`,
      ipv4: ADDRESS.pool4,
      ipv6: ADDRESS.pool6,
    });
    const tokenFile = path.join(workDir, "node-token");
    await fs.writeFile(tokenFile, added.nodeToken, { mode: 0o600 });
    this.bundle = await buildAgent(path.join(workDir, "naijalink-agent.mjs"));
    const common = ["--api", this.app.url, "--token-file", tokenFile, "--interface", network.wg.node];
    this.setupArgs = [
      "setup",
      ...common,
      ...["--listen-port", "51820", "--egress", network.link.nodeEgress],
      ...[
        "--exit-addresses",
        ADDRESS.nodeEgress,
        "--state-file",
        path.join(workDir, "setup.json"),
        "--no-systemd",
      ],
    ];
    await this.setup();
    const [command, ...args] = inNs(network.ns.node, [
      ...[process.execPath, this.bundle, ...common],
      ...["--private-key-file", path.join(workDir, "private.key"), "--poll-ms", "300", "--status-ms", "2000"],
      // Setup's record: with it the running agent applies set-mtu, set-ports and set-dns itself.
      ...["--state-file", path.join(workDir, "setup.json")],
      ...this.agentArgs,
    ]);
    this.agent = spawn(command!, args, { stdio: ["ignore", "pipe", "pipe"] });
    for (const stream of [this.agent.stdout, this.agent.stderr])
      stream?.on("data", (chunk: Buffer) => (this.agentOutput += chunk.toString()));
    await waitFor(
      "the agent to register the node and apply its peers",
      async () => this.agentOutput.includes("full peer set applied"),
      60_000,
      200,
    );
    // Only this node takes the buyers from now on (the demo's development server included).
    const { servers } = await this.admin<{ servers: Array<{ name: string; status: string }> }>({
      command: "list-servers",
    });
    for (const server of servers.filter(
      (server) => server.name !== this.serverName && server.status === "active",
    ))
      await this.admin({ command: "drain-server", server: server.name });
  }

  /** The bundled agent's `setup` in the node's namespace, as the operator runs it; its output. */
  setup(extra: string[] = []): Promise<string> {
    return run(inNs(this.network.ns.node, [process.execPath, this.bundle, ...this.setupArgs, ...extra]), {
      timeoutMs: 60_000,
    });
  }

  /** Runs a command in the node's namespace. */
  exec(argv: string[]): Promise<string> {
    return run(inNs(this.network.ns.node, argv));
  }

  async stop(): Promise<void> {
    const agent = this.agent;
    if (!agent || agent.exitCode !== null) return;
    const exited = new Promise((resolve) => agent.once("exit", resolve));
    agent.kill("SIGTERM");
    await exited;
  }
}
