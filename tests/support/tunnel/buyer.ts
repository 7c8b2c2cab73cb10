// The buyer of a HostileNetwork: buys a config through the real flow (create-checkout, the
// built-in checkout paid with 4242…, verify-payment, the download link) and imports it as
// wg-quick does (`wg setconf` of its keys and peer, its Address, MTU, routes for its AllowedIPs,
// its DNS in the namespace's resolv.conf).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { inNs, netnsEtc, run, runStatus, waitFor } from "./host.ts";
import { ADDRESS, nftCounter, type HostileNetwork } from "./hostile-network.ts";

/** One `Name = value` line of a .conf, or undefined. */
export function confField(text: string, name: string): string | undefined {
  return new RegExp(`^${name}\\s*=\\s*(.+)$`, "m").exec(text)?.[1]?.trim();
}

const required = (text: string, name: string) => {
  const value = confField(text, name);
  if (value === undefined) throw new Error(`the config has no ${name}`);
  return value;
};

export interface BoughtConfig {
  text: string;
  /** The capability link's path, for the alternate-port variant (`?port=`). */
  downloadPath: string;
}

/** Buys Basic Monthly as a browser does, and downloads the first device's config. */
export async function buyConfig(apiUrl: string, email: string): Promise<BoughtConfig> {
  const call = async (pathname: string, init: RequestInit) => {
    const response = await fetch(`${apiUrl}${pathname}`, { redirect: "manual", ...init });
    if (response.status >= 400)
      throw new Error(`${pathname} answered ${response.status}: ${await response.text()}`);
    return response;
  };
  const json = { "content-type": "application/json" };
  const checkout = await call("/api/create-checkout", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ planId: "basic-monthly", customerEmail: email }),
  });
  const cookie = checkout.headers
    .getSetCookie()
    .map((value) => value.split(";")[0])
    .join("; ");
  const sessionId = new URL(((await checkout.json()) as { url: string }).url).pathname.split("/").pop()!;
  await call(`/checkout/${sessionId}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ cardNumber: "4242424242424242", expiry: "12/34", cvc: "123" }).toString(),
  });
  const verified = (await (
    await call("/api/verify-payment", {
      method: "POST",
      headers: { ...json, cookie },
      body: JSON.stringify({ sessionId }),
    })
  ).json()) as { downloadUrl: string | null };
  if (!verified.downloadUrl) throw new Error("verify-payment gave no download link");
  const downloadPath = new URL(verified.downloadUrl).pathname;
  return { text: await (await call(downloadPath, {})).text(), downloadPath };
}

/** The same device's config for one of the server's alternate ports. */
export async function alternateConfig(apiUrl: string, bought: BoughtConfig, port: number): Promise<string> {
  const response = await fetch(`${apiUrl}${bought.downloadPath}?port=${port}`);
  if (response.status !== 200) throw new Error(`the port ${port} variant answered ${response.status}`);
  return response.text();
}

export class Buyer {
  private wireguard: ChildProcess | undefined;

  constructor(readonly network: HostileNetwork) {}

  exec(argv: string[], timeoutMs?: number) {
    return runStatus(inNs(this.network.ns.buyer, argv), { timeoutMs });
  }

  /**
   * Brings the tunnel up from a .conf as wg-quick would. Without an `MTU =` line, wg-quick's own
   * choice: the outer interface's MTU less 80 (1420 on a 1500 link).
   */
  async connect(text: string): Promise<void> {
    const { ns, wg, link } = this.network;
    const inBuyer = (argv: string[]) => run(inNs(ns.buyer, argv));
    if (!this.wireguard) {
      this.wireguard = spawn("ip", ["netns", "exec", ns.buyer, "wireguard-go", "-f", wg.buyer], {
        env: { ...process.env, WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD: "1" },
        stdio: "ignore",
      });
      await waitFor("wireguard-go on the buyer", () => inBuyer(["wg", "show", wg.buyer]), 10_000);
    }
    const confFile = path.join(this.network.workDir, "buyer.conf");
    await fs.writeFile(
      confFile,
      [
        "[Interface]",
        `PrivateKey = ${required(text, "PrivateKey")}`,
        "[Peer]",
        ...["PublicKey", "PresharedKey", "Endpoint", "AllowedIPs", "PersistentKeepalive"].map(
          (name) => `${name} = ${required(text, name)}`,
        ),
        "",
      ].join("\n"),
      { mode: 0o600 },
    );
    await inBuyer(["wg", "setconf", wg.buyer, confFile]);
    const outerMtu = Number(JSON.parse(await inBuyer(["ip", "-j", "link", "show", link.buyer]))[0].mtu);
    const mtu = confField(text, "MTU") ?? String(outerMtu - 80);
    await inBuyer(["ip", "link", "set", wg.buyer, "mtu", mtu, "up"]);
    await inBuyer(["ip", "address", "flush", "dev", wg.buyer]);
    for (const address of required(text, "Address").split(","))
      await inBuyer([
        "ip",
        "address",
        "add",
        address.trim(),
        "dev",
        wg.buyer,
        ...(address.includes(":") ? ["nodad"] : []),
      ]);
    // Routes for AllowedIPs, a default route as two halves, so the outer one stays for the endpoint.
    const endpointHost = required(text, "Endpoint").replace(/:\d+$/, "");
    await inBuyer(["ip", "route", "replace", `${endpointHost}/32`, "via", ADDRESS.buyerGateway]);
    const halves: Record<string, string[]> = {
      "0.0.0.0/0": ["0.0.0.0/1", "128.0.0.0/1"],
      "::/0": ["::/1", "8000::/1"],
    };
    for (const allowed of required(text, "AllowedIPs")
      .split(",")
      .map((cidr) => cidr.trim()))
      for (const prefix of halves[allowed] ?? [allowed])
        await inBuyer([
          "ip",
          prefix.includes(":") ? "-6" : "-4",
          "route",
          "replace",
          prefix,
          "dev",
          wg.buyer,
        ]);
    const dns = required(text, "DNS")
      .split(",")
      .map((server) => `nameserver ${server.trim()}`);
    await fs.mkdir(netnsEtc(ns.buyer), { recursive: true });
    await fs.writeFile(
      path.join(netnsEtc(ns.buyer), "resolv.conf"),
      `${dns.join("\n")}\noptions timeout:2\n`,
    );
  }

  /** Whether the tunnel carries traffic now: the internet host's echo of the caller's address. */
  async echo(seconds = 3): Promise<string | null> {
    const answer = await this.curl([`http://${ADDRESS.internet}:8080/`], seconds);
    return answer.code === 0 ? answer.stdout : null;
  }

  /** curl in the buyer's namespace: its exit code (28: too slow or timed out), body, stderr, elapsed. */
  curl(args: string[], maxSeconds: number) {
    return this.exec(["curl", "-sS", "--max-time", String(maxSeconds), ...args], (maxSeconds + 30) * 1000);
  }

  /**
   * Counters on the buyer's outer interface: DNS packets either way, and IPv6 to anything beyond the
   * link itself (neighbour discovery and multicast left out). What leaves outside the tunnel.
   */
  async countOuterTraffic(): Promise<void> {
    const out = `"${this.network.link.buyer}"`;
    const table = [
      "table inet leaks {",
      "\tcounter dns {}",
      "\tcounter ipv6 {}",
      "\tchain out {",
      "\t\ttype filter hook postrouting priority filter; policy accept;",
      `\t\toifname ${out} meta l4proto { tcp, udp } th dport { 53, 853 } counter name dns`,
      `\t\toifname ${out} ip6 daddr != { fe80::/10, ff00::/8 } counter name ipv6`,
      "\t}",
      "\tchain in {",
      "\t\ttype filter hook prerouting priority filter; policy accept;",
      `\t\tiifname ${out} meta l4proto { tcp, udp } th sport { 53, 853 } counter name dns`,
      "\t}",
      "}",
      "",
    ].join("\n");
    await run(inNs(this.network.ns.buyer, ["nft", "-f", "-"]), {
      input: `table inet leaks\ndelete table inet leaks\n${table}`,
    });
  }

  outerCount(counter: "dns" | "ipv6"): Promise<number> {
    return nftCounter(this.network.ns.buyer, "leaks", counter);
  }

  stop() {
    this.wireguard?.kill("SIGTERM");
  }
}
