// The WireGuard interface as setup makes it and uninstall undoes it: created (kernel module, else
// wireguard-go), listening where the endpoint says, its MTU the clients' MTU (decision 092: so the
// MSS clamp to the route MTU fits TCP to their tunnels both ways), the server's addresses, up.
import { canonicalIpAddress } from "../node-api.ts";
import type { HostFacts, SetupRecord, SetupSettings, Step } from "./plan.ts";

export function canonicalCidr(cidr: string): string {
  const [address = "", prefix] = cidr.split("/");
  return `${canonicalIpAddress(address) ?? address}/${prefix}`;
}

const run = (why: string, argv: string[], env?: Record<string, string>): Step =>
  env ? { kind: "run", why, argv, env } : { kind: "run", why, argv };

/** The steps, and the addresses this run adds (for the record). */
export function interfaceSetupSteps(
  facts: HostFacts,
  { iface, listenPort, server }: SetupSettings,
): { steps: Step[]; wantedAddresses: string[]; addedNow: string[] } {
  const steps: Step[] = [];
  if (!facts.iface.exists) {
    steps.push(
      facts.kernelWireGuard
        ? run("create the WireGuard interface", ["ip", "link", "add", iface, "type", "wireguard"])
        : run("create the WireGuard interface (no kernel module: wireguard-go)", ["wireguard-go", iface], {
            WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD: "1",
          }),
    );
  }
  if (facts.iface.listenPort !== listenPort)
    steps.push(
      run("listen where the server's endpoint says", ["wg", "set", iface, "listen-port", String(listenPort)]),
    );
  steps.push(...mtuSteps(facts, iface, server.mtu));
  const wantedAddresses = [server.ipv4, server.ipv6].map(canonicalCidr);
  const present = facts.iface.addresses.map(canonicalCidr);
  for (const address of present.filter((address) => !wantedAddresses.includes(address)))
    steps.push(
      run("remove an address the server no longer has", ["ip", "address", "del", address, "dev", iface]),
    );
  const addedNow = wantedAddresses.filter((address) => !present.includes(address));
  for (const address of addedNow)
    steps.push(
      run("give the interface the server's tunnel address", ["ip", "address", "add", address, "dev", iface]),
    );
  if (!facts.iface.up) steps.push(run("bring the interface up", ["ip", "link", "set", iface, "up"]));
  return { steps, wantedAddresses, addedNow };
}

/** Setting the interface's MTU to the clients' MTU when it differs (setup, and the running agent). */
export function mtuSteps(facts: Pick<HostFacts, "iface">, iface: string, mtu: number): Step[] {
  if (facts.iface.mtu === mtu) return [];
  return [
    run("the clients' MTU, so TCP is clamped to fit their tunnels", [
      "ip",
      "link",
      "set",
      iface,
      "mtu",
      String(mtu),
    ]),
  ];
}

/** The MTU to put back at uninstall: kept from the first setup that changed an operator's interface. */
export function mtuBefore(
  facts: HostFacts,
  mtu: number,
  previous: SetupRecord | null,
  createdInterface: boolean,
): number | undefined {
  if (createdInterface) return undefined;
  if (previous?.mtuBefore !== undefined) return previous.mtuBefore;
  return facts.iface.mtu !== null && facts.iface.mtu !== mtu ? facts.iface.mtu : undefined;
}

/** Deletes the interface setup created, or takes back what setup gave the operator's own. */
export function interfaceUninstallSteps(facts: HostFacts, record: SetupRecord): Step[] {
  const { iface } = record;
  if (!facts.iface.exists) return [];
  if (record.createdInterface)
    return [run("remove the WireGuard interface setup created", ["ip", "link", "del", iface])];
  const steps: Step[] = [];
  if (record.mtuBefore !== undefined && facts.iface.mtu !== record.mtuBefore)
    steps.push(
      run("put back the interface's MTU as it was", [
        "ip",
        "link",
        "set",
        iface,
        "mtu",
        String(record.mtuBefore),
      ]),
    );
  const present = facts.iface.addresses.map(canonicalCidr);
  for (const address of record.addedAddresses.filter((address) => present.includes(address)))
    steps.push(run("remove an address setup added", ["ip", "address", "del", address, "dev", iface]));
  return steps;
}
