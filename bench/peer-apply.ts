// `npm run bench:peer-apply`: the node agent's cost per peer change on a big interface.
// On a wireguard-go interface holding 10,000 peers it times, through the agent's own code
// (agent/applier.ts, the answer checked with the node API contract as it comes off the wire):
//   - cold sync: a full set of 10,000 peers applied to an empty interface;
//   - one change (add or remove one peer): a "changes" answer checked and applied (`wg set`);
//   - the same change as `wg syncconf` of the full 10,000-peer config (what the agent avoids);
// and prints both and their ratio. Target: ≤ 10 ms per change. Needs root, /dev/net/tun,
// wireguard-go, wg and ip; the interface lives in a network namespace of its own.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createPeerApplier } from "../agent/applier.ts";
import { checkPeerAnswer, type NodeServer } from "../agent/node-api.ts";
import { desiredMap, diffPeers, type DesiredPeer } from "../agent/peers.ts";
import { readInterface, runWg } from "../agent/wg.ts";
import { addressesAt } from "../server/domain/vpn/addresses.ts";
import { generateKeyPair, generatePresharedKey } from "../server/domain/vpn/keys.ts";
import { reportFigure, SHORT } from "./support/results.mjs";

// BENCH_SHORT=1 (npm run bench): 2,000 peers, fewer runs.
const PEERS = Number(process.env.BENCH_PEERS ?? (SHORT ? 2_000 : 10_000));
const CHANGES = Number(process.env.BENCH_CHANGES ?? (SHORT ? 10 : 40));
const SYNCCONF_RUNS = Number(process.env.BENCH_SYNCCONF_RUNS ?? (SHORT ? 2 : 6));

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

const SERVER: NodeServer = {
  name: "ng-bench-1",
  listenPort: 51821,
  ipv4: "10.66.0.1/16",
  ipv6: "fd66::1/64",
  ipv4Pool: "10.66.0.0/16",
  ipv6Pool: "fd66::/64",
  mtu: 1280,
  alternatePorts: [],
  resolver: false,
};

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
  const lines = ["[Interface]", `PrivateKey = ${privateKey}`, `ListenPort = ${SERVER.listenPort}`, ""];
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
    const { privateKey, publicKey } = generateKeyPair();
    const keyFile = path.join(workDir, "private.key");
    await fs.writeFile(keyFile, privateKey, { mode: 0o600 });
    const log = () => undefined;
    const applier = createPeerApplier({ wg, iface, privateKeyFile: keyFile, publicKey, log });
    /** What the agent does with an answer body: parse, check against the contract, apply. */
    const take = (body: unknown) => applier.take(checkPeerAnswer(JSON.parse(JSON.stringify(body))));

    console.log(`Generating ${PEERS} peers...`);
    const desired = Array.from({ length: PEERS }, (_, index) => peerAt(index));

    let started = performance.now();
    await take({ kind: "full", version: "1", server: SERVER, peers: desired });
    const coldMs = performance.now() - started;
    const afterCold = await readInterface(wg, iface);
    if (afterCold.peers.size !== PEERS)
      throw new Error(`expected ${PEERS} peers, found ${afterCold.peers.size}`);

    // One change at a time as the control plane sends it: add a peer, then remove it.
    const extra = peerAt(PEERS);
    const agentTimes: number[] = [];
    let current = desired;
    for (let change = 0; change < CHANGES; change += 1) {
      const adding = change % 2 === 0;
      const body = {
        kind: "changes",
        since: applier.version,
        version: String(change + 2),
        server: SERVER,
        upserts: adding ? [extra] : [],
        removals: adding ? [] : [extra.publicKey],
      };
      started = performance.now();
      await take(body);
      agentTimes.push(performance.now() - started);
      current = adding ? [...desired, extra] : desired;
    }
    if (applier.version !== String(CHANGES + 1)) throw new Error("the agent did not apply every change");
    // What each change cost before decision 046: a diff of the whole set.
    const wholeDiffTimes: number[] = [];
    const model = afterCold.peers;
    for (let index = 0; index < 10; index += 1) {
      const next = desiredMap(index % 2 === 0 ? [...desired, extra] : desired);
      started = performance.now();
      diffPeers(next, model);
      wholeDiffTimes.push(performance.now() - started);
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
      `  cold sync of ${PEERS.toLocaleString("en-US")} peers (full set checked, diffed, wg set):  ${ms(coldMs)}`,
    );
    console.log(
      `  one change via the agent (answer checked, change diffed, one wg set), ${CHANGES} runs:  median ${ms(perChange)}, p95 ${ms(percentile(agentTimes, 0.95))}`,
    );
    console.log(
      `    a bare \`wg --version\` process: median ${ms(median(spawnTimes))}; a whole-set diff over ${PEERS.toLocaleString("en-US")} peers (no longer per change): median ${ms(median(wholeDiffTimes))}`,
    );
    console.log(
      `  one change via wg syncconf of the full config, ${SYNCCONF_RUNS} runs:  median ${ms(syncconf)}`,
    );
    console.log(`  ratio syncconf / agent:  ${(syncconf / perChange).toFixed(1)}x`);
    console.log(`  target ≤ 10 ms per change:  ${perChange <= 10 ? "met" : "NOT met"}`);
    reportFigure({
      figure: `peer-apply: one change, ${PEERS.toLocaleString("en-US")} peers (median)`,
      value: perChange,
      unit: "ms",
      max: 10,
    });
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
