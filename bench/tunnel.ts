// `npm run bench:tunnel`: TCP throughput through a bought config's tunnel and over the raw path, in
// the same run, with iperf3 (decision 093). The network of the hostile-path tests without its
// hostility (tests/support/tunnel/hostile-network.ts: buyer → router → node → internet host, a 1500 hop):
// the built app on the control link, the node prepared by the bundled agent's `setup` and run by
// the bundled agent, a config bought through the built-in checkout and imported as wg-quick does.
// The tunnel path reaches the internet host at 203.0.113.200 through wireguard-go on both ends;
// the raw path reaches it at 203.0.113.201 through the same router and node, outside the tunnel.
// For each client MTU of BENCH_MTUS (default 1280,1420; set with the operator's set-mtu, setup run
// again, the config downloaded again), BENCH_ROUNDS rounds (default 3) of BENCH_SECONDS-second
// (default 5) iperf3 tests, upload and download, raw path and tunnel alternating; medians are
// printed with the tunnel/raw ratio.
// Needs root, /dev/net/tun, ip, wg, wireguard-go, nft, unbound, curl and iperf3.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import os from "node:os";
import path from "node:path";
import { buildIfStale } from "../scripts/build-if-stale.js";
import { Buyer, buyConfig } from "../tests/support/tunnel/buyer.ts";
import { inNs, run, tunnelUnavailableReason, waitFor } from "../tests/support/tunnel/host.ts";
import { ADDRESS, HostileNetwork } from "../tests/support/tunnel/hostile-network.ts";
import { VpnNode } from "../tests/support/tunnel/vpn-node.ts";
import { loadServerBundle } from "./support/server-bundle.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** The client MTUs measured: the default and the largest a config may carry. */
const MTUS = (process.env.BENCH_MTUS ?? "1280,1420").split(",").map(Number);

type Direction = "upload" | "download";

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mbit = (bitsPerSecond: number) => (bitsPerSecond / 1e6).toFixed(0);

async function main() {
  const missing = tunnelUnavailableReason(["curl", "iperf3"]);
  if (missing) {
    console.error(`bench:tunnel cannot run here: ${missing}`);
    process.exit(1);
  }
  buildIfStale();
  const network = await HostileNetwork.create("t", { hopMtu: 1500 });
  let stopApp: (() => Promise<void>) | undefined;
  let node: VpnNode | undefined;
  let buyer: Buyer | undefined;
  const cleanup = async () => {
    buyer?.stop();
    await node?.stop();
    await network.remove();
    await stopApp?.();
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => void cleanup().then(() => process.exit(130)));

  try {
    const bundle = await loadServerBundle();
    const config = bundle.loadConfig({
      NODE_ENV: "production",
      DATA_DIR: path.join(network.workDir, "app"),
      HOST: network.control.root,
      PORT: "0",
      PUBLIC_URL: "http://127.0.0.1:3000",
      LOG_LEVEL: "warn",
      SEED_SAMPLE_CONTENT: "false",
      CONFIG_ENCRYPTION_KEY: crypto.randomBytes(32).toString("base64"),
      BETTER_AUTH_SECRET: crypto.randomBytes(24).toString("hex"),
      VPN_ENDPOINT: `${ADDRESS.nodePublic}:51820`,
    });
    const server = await bundle.startServer({ config, services: { backgroundJobs: false } });
    stopApp = () => server.stop();
    const apiUrl = `http://${network.control.root}:${new URL(server.url).port}`;

    node = new VpnNode(network, { url: apiUrl, dataDir: config.DATA_DIR });
    await node.start();
    await network.startInternetHost();
    buyer = new Buyer(network);
    const bought = await buyConfig(apiUrl, "bench@example.com");
    // The raw path: the internet host's second address, routed outside the tunnel.
    await run(
      inNs(network.ns.buyer, [
        "ip",
        "route",
        "replace",
        `${ADDRESS.internetRaw}/32`,
        "via",
        ADDRESS.buyerGateway,
      ]),
    );
    const iperf = spawn("ip", ["netns", "exec", network.ns.inet, "iperf3", "-s"], { stdio: "ignore" });
    await waitFor(
      "the iperf3 server",
      async () => (await run(inNs(network.ns.inet, ["ss", "-ltn", "sport = :5201"]))).includes("5201"),
      10_000,
    );

    /** One iperf3 test from the buyer: bits per second the receiver counted. */
    const measure = async (target: string, direction: Direction) => {
      const argv = ["iperf3", "-c", target, "-t", String(SECONDS), "-J"];
      if (direction === "download") argv.push("-R");
      const output = await run(inNs(network.ns.buyer, argv), { timeoutMs: (SECONDS + 30) * 1000 });
      return (JSON.parse(output) as { end: { sum_received: { bits_per_second: number } } }).end.sum_received
        .bits_per_second;
    };
    const results = new Map<string, number[]>();
    const record = (key: string, value: number) => results.set(key, [...(results.get(key) ?? []), value]);
    for (const mtu of MTUS) {
      // The operator's set-mtu (409: the server has it already), setup again, the config again.
      await node.admin({ command: "set-mtu", server: node.serverName, mtu }).catch((error: Error) => {
        if (!error.message.includes("answered 409")) throw error;
      });
      await node.setup();
      const text = await (await fetch(`${apiUrl}${bought.downloadPath}`)).text();
      if (!text.includes(`MTU = ${mtu}\n`))
        throw new Error(`the config downloaded again does not say MTU = ${mtu}`);
      await buyer.connect(text);
      await waitFor("the tunnel", () => buyer!.echo(3).then((body) => body ?? undefined), 30_000, 200);
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const direction of ["upload", "download"] as const) {
          record(`raw ${direction}`, await measure(ADDRESS.internetRaw, direction));
          record(`${mtu} ${direction}`, await measure(ADDRESS.internet, direction));
        }
      }
    }
    iperf.kill("SIGTERM");

    const medianOf = (key: string) => median(results.get(key)!);
    console.log(
      `tunnel: iperf3 TCP, ${ROUNDS} rounds of ${SECONDS} s per path, direction and MTU, medians; ` +
        `wireguard-go on both ends, hop MTU 1500 (${os.cpus().length} CPUs, Node ${process.version})`,
    );
    for (const direction of ["upload", "download"] as const) {
      const raw = medianOf(`raw ${direction}`);
      const tunnels = MTUS.map((mtu) => {
        const tunnel = medianOf(`${mtu} ${direction}`);
        return `MTU ${mtu} ${mbit(tunnel)} Mbit/s (ratio ${(tunnel / raw).toFixed(2)})`;
      });
      console.log(`  ${direction.padEnd(8)} raw path ${mbit(raw)} Mbit/s; tunnel ${tunnels.join(", ")}`);
    }
    console.log(
      `  load average: ${os
        .loadavg()
        .map((value) => value.toFixed(1))
        .join(", ")}`,
    );
    console.log(
      "  reproduce: sudo npm run bench:tunnel (BENCH_ROUNDS, BENCH_SECONDS, BENCH_MTUS change the run)",
    );
  } finally {
    await cleanup();
  }
}

await main();
process.exit(0);
