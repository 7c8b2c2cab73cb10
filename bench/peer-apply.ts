// `npm run bench:peer-apply`: the node agent's cost per peer change on a big interface.
// On a wireguard-go interface holding 10,000 peers it times
//   - cold sync: the agent's diff/apply path bringing an empty interface to 10,000 peers;
//   - one change (add or remove one peer) through the agent's diff/apply path (`wg set`);
//   - the same change as `wg syncconf` of the full 10,000-peer config (what the agent avoids);
// and prints both and their ratio. Target: ≤ 10 ms per change. Needs root, /dev/net/tun,
// wireguard-go, wg and ip; the interface lives in a network namespace of its own.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { applyDiffToModel, diffPeers, type ActualPeer, type DesiredPeer } from "../agent/peers.ts";
import { applyDiff, readInterface, runWg } from "../agent/wg.ts";
import { addressesAt } from "../server/domain/vpn/addresses.ts";
import { generateKeyPair, generatePresharedKey } from "../server/domain/vpn/keys.ts";

const PEERS = Number(process.env.BENCH_PEERS ?? 10_000);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 40);
const SYNCCONF_RUNS = Number(process.env.BENCH_SYNCCONF_RUNS ?? 6);

function unavailable(): string | null {
  if (process.getuid?.() !== 0) return "needs root (network namespace and TUN device)";
  for (const tool of ["wireguard-go", "wg", "ip"]) {
    const result = spawnSync(tool, tool === "ip" ? ["-V"] : ["--version"], { stdio: "ignore" });
    if ((result.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT")
      return `${tool} is not installed`;
  }
  return null;
}

function run(argv: string[]) {
  const result = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", timeout: 60_000 });
  if (result.status !== 0) throw new Error(`${argv.join(" ")}: ${result.stderr || result.error?.message}`);
  return result.stdout;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const ms = (value: number) => `${value.toFixed(2)} ms`;

function peerAt(index: number): DesiredPeer {
  const { ipv4, ipv6 } = addressesAt("10.66.0.0/16", "fd66::/64", index + 2);
  return {
    publicKey: generateKeyPair().publicKey,
    presharedKey: generatePresharedKey(),
    allowedIps: [`${ipv4}/32`, `${ipv6}/128`],
  };
}

function fullConfig(privateKey: string, peers: DesiredPeer[]): string {
  const lines = ["[Interface]", `PrivateKey = ${privateKey}`, "ListenPort = 51821", ""];
  for (const peer of peers) {
    lines.push("[Peer]", `PublicKey = ${peer.publicKey}`, `PresharedKey = ${peer.presharedKey}`);
    lines.push(`AllowedIPs = ${peer.allowedIps.join(", ")}`, "");
  }
  return lines.join("\n");
}

async function main() {
  const reason = unavailable();
  if (reason) {
    console.error(`bench:peer-apply cannot run here: ${reason}`);
    process.exit(1);
  }
  const id = process.pid % 100_000;
  const namespace = `nl-bench-${id}`;
  const iface = `nlbench${id}`;
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-bench-"));
  let wireguard: ChildProcess | undefined;
  const wg = { argv: ["wg"] }; // wg talks to wireguard-go over its UAPI socket, whatever the namespace
  try {
    run(["ip", "netns", "add", namespace]);
    wireguard = spawn("ip", ["netns", "exec", namespace, "wireguard-go", "-f", iface], {
      env: { ...process.env, WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD: "1" },
      stdio: "ignore",
    });
    for (let attempt = 0; ; attempt += 1) {
      if (spawnSync("wg", ["show", iface], { stdio: "ignore" }).status === 0) break;
      if (attempt > 100) throw new Error("wireguard-go did not come up within 10 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const privateKey = generateKeyPair().privateKey;
    const keyFile = path.join(workDir, "private.key");
    await fs.writeFile(keyFile, privateKey, { mode: 0o600 });
    await runWg(wg, ["set", iface, "private-key", keyFile, "listen-port", "51821"]);

    console.log(`Generating ${PEERS} peers...`);
    const desired = Array.from({ length: PEERS }, (_, index) => peerAt(index));

    // Cold sync through the agent's path.
    let model = new Map<string, ActualPeer>();
    let started = performance.now();
    const coldDiff = diffPeers(desired, model);
    await applyDiff(wg, iface, coldDiff);
    applyDiffToModel(model, coldDiff);
    const coldMs = performance.now() - started;
    const afterCold = await readInterface(wg, iface);
    if (afterCold.peers.size !== PEERS)
      throw new Error(`expected ${PEERS} peers, found ${afterCold.peers.size}`);
    model = afterCold.peers;

    // One change at a time through the agent's diff/apply path: add a peer, then remove it.
    const extra = peerAt(PEERS);
    const agentTimes: number[] = [];
    const diffTimes: number[] = [];
    let current = desired;
    for (let change = 0; change < CHANGES; change += 1) {
      const next = change % 2 === 0 ? [...desired, extra] : desired;
      started = performance.now();
      const diff = diffPeers(next, model);
      diffTimes.push(performance.now() - started);
      await applyDiff(wg, iface, diff);
      applyDiffToModel(model, diff);
      agentTimes.push(performance.now() - started);
      current = next;
    }
    // The floor under any `wg set`: starting a wg process at all (`wg --version` touches no interface).
    const spawnTimes: number[] = [];
    for (let index = 0; index < 20; index += 1) {
      started = performance.now();
      await runWg(wg, ["--version"]);
      spawnTimes.push(performance.now() - started);
    }
    const check = await readInterface(wg, iface);
    if (check.peers.size !== current.length) throw new Error("the interface does not match the desired set");

    // The same change as a full rewrite with `wg syncconf`.
    const syncTimes: number[] = [];
    for (let runIndex = 0; runIndex < SYNCCONF_RUNS; runIndex += 1) {
      const next = runIndex % 2 === 0 ? [...desired, extra] : desired;
      const file = path.join(workDir, `full-${runIndex}.conf`);
      await fs.writeFile(file, fullConfig(privateKey, next), { mode: 0o600 });
      started = performance.now();
      await runWg(wg, ["syncconf", iface, file]);
      syncTimes.push(performance.now() - started);
    }

    const perChange = median(agentTimes);
    const syncconf = median(syncTimes);
    console.log("");
    console.log(
      `peer-apply on a wireguard-go interface with ${PEERS.toLocaleString("en-US")} peers (${os.cpus().length} CPUs, Node ${process.version})`,
    );
    console.log(
      `  cold sync of ${PEERS.toLocaleString("en-US")} peers (agent diff + wg set):  ${ms(coldMs)}`,
    );
    console.log(
      `  one change via the agent (diff + wg set), ${CHANGES} runs:  median ${ms(perChange)}, p95 ${ms(percentile(agentTimes, 0.95))}`,
    );
    console.log(
      `    of which the diff over ${PEERS.toLocaleString("en-US")} peers: median ${ms(median(diffTimes))}; a bare \`wg --version\` process: median ${ms(median(spawnTimes))}`,
    );
    console.log(
      `  one change via wg syncconf of the full config, ${SYNCCONF_RUNS} runs:  median ${ms(syncconf)}`,
    );
    console.log(`  ratio syncconf / agent:  ${(syncconf / perChange).toFixed(1)}x`);
    console.log(`  target ≤ 10 ms per change:  ${perChange <= 10 ? "met" : "NOT met"}`);
    console.log(
      `  load average while measuring: ${os
        .loadavg()
        .map((value) => value.toFixed(1))
        .join(", ")}`,
    );
  } finally {
    spawnSync("ip", ["netns", "exec", namespace, "ip", "link", "del", iface], { stdio: "ignore" });
    wireguard?.kill("SIGTERM");
    spawnSync("ip", ["netns", "del", namespace], { stdio: "ignore" });
    await fs.rm(workDir, { recursive: true, force: true });
  }
}

await main();
