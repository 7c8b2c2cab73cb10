import net from "node:net";

/**
 * The address per-client limits count against. An IPv4 address (also when IPv6-mapped) is
 * itself; an IPv6 address is its /64, the block one subscriber is normally given, so hopping
 * through the 2^64 addresses of one line does not escape a limit. The /64 is written as its
 * network address, so it is still a valid address for code that checks (better-auth does).
 */
export function clientAddress(ip: string | undefined): string {
  if (!ip) return "unknown";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (net.isIPv6(ip)) return `${expandIpv6(ip).slice(0, 4).join(":")}::`;
  return ip;
}

function expandIpv6(ip: string): string[] {
  const [head = "", tail] = ip.split("%")[0]!.split("::") as [string, string | undefined];
  const headParts = head ? head.split(":") : [];
  const tailParts = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - headParts.length - tailParts.length).fill("0");
  return [...headParts, ...zeros, ...tailParts].map((part) => part.toLowerCase().replace(/^0+(?=.)/, ""));
}
