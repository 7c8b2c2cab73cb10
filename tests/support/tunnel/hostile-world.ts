// What each hostile-path test file runs on: a HostileNetwork, the app (startTestServer) on its
// control link, the node as an operator runs it, the internet host and a buyer. bench/tunnel.ts
// puts the same pieces around the built app.
import { startTestServer, type TestServer } from "../app.ts";
import { Buyer } from "./buyer.ts";
import { ADDRESS, HostileNetwork } from "./hostile-network.ts";
import { VpnNode } from "./vpn-node.ts";

export class HostileWorld {
  network!: HostileNetwork;
  app!: TestServer;
  node!: VpnNode;
  buyer!: Buyer;
  /** The app as the node and the buyer reach it, on the control link. */
  apiUrl = "";

  constructor(
    private readonly tag: string,
    private readonly options: { hopMtu: number; env?: Record<string, string>; agentArgs?: string[] },
  ) {}

  async start(): Promise<void> {
    this.network = await HostileNetwork.create(this.tag, { hopMtu: this.options.hopMtu });
    this.app = await startTestServer({
      env: {
        HOST: this.network.control.root,
        VPN_ENDPOINT: `${ADDRESS.nodePublic}:51820`,
        ...this.options.env,
      },
    });
    this.apiUrl = `http://${this.network.control.root}:${new URL(this.app.url).port}`;
    this.node = new VpnNode(
      this.network,
      { url: this.apiUrl, dataDir: this.app.dataDir },
      this.options.agentArgs,
    );
    await this.node.start();
    await this.network.startInternetHost();
    this.buyer = new Buyer(this.network);
  }

  /** Ends everything that started, whatever failed. */
  async stop(): Promise<void> {
    const started = this as Partial<HostileWorld>;
    started.buyer?.stop();
    await started.node?.stop();
    const failures = (await started.network?.remove()) ?? [];
    await started.app?.stop();
    const unexpected = failures.filter((failure) => !/Cannot find device|does not exist/i.test(failure));
    if (unexpected.length) console.warn(`[tunnel] cleanup: ${unexpected.join("; ")}`);
  }
}
