// Address pools: a device's IPv4 and IPv6 are the same host offset (its addressIndex) inside
// the server's two pools. Offset 1 is the server's own tunnel address.

export const SERVER_ADDRESS_INDEX = 1;
export const FIRST_DEVICE_INDEX = 2;

interface Pool {
  base: bigint;
  bits: number;
  prefix: number;
}

function parseIpv4(address: string): bigint {
  const parts = address.split(".").map(Number);
  if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part < 0 || part > 255)) {
    throw new Error(`Not an IPv4 address: ${address}`);
  }
  return parts.reduce((value, part) => (value << 8n) | BigInt(part), 0n);
}

function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join(".");
}

function parseIpv6(address: string): bigint {
  const [head, tail] = address.split("::") as [string, string | undefined];
  const headParts = head ? head.split(":") : [];
  const tailParts = tail ? tail.split(":") : [];
  const missing = 8 - headParts.length - tailParts.length;
  if (missing < 0 || (tail === undefined && missing !== 0))
    throw new Error(`Not an IPv6 address: ${address}`);
  const groups = [...headParts, ...Array<string>(missing).fill("0"), ...tailParts];
  return groups.reduce((value, group) => {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) throw new Error(`Not an IPv6 address: ${address}`);
    return (value << 16n) | BigInt(parseInt(group, 16));
  }, 0n);
}

function formatIpv6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, index) =>
    Number((value >> BigInt((7 - index) * 16)) & 0xffffn).toString(16),
  );
  // Compress the longest run of zero groups (RFC 5952).
  let bestStart = -1;
  let bestLength = 0;
  for (let start = 0; start < 8;) {
    if (groups[start] !== "0") {
      start += 1;
      continue;
    }
    let end = start;
    while (end < 8 && groups[end] === "0") end += 1;
    if (end - start > bestLength && end - start > 1) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end;
  }
  if (bestStart === -1) return groups.join(":");
  return `${groups.slice(0, bestStart).join(":")}::${groups.slice(bestStart + bestLength).join(":")}`;
}

function parsePool(cidr: string, family: 4 | 6): Pool {
  const [address, prefixText] = cidr.split("/");
  const bits = family === 4 ? 32 : 128;
  const prefix = Number(prefixText);
  if (!address || !Number.isInteger(prefix) || prefix < 8 || prefix > bits - 2)
    throw new Error(`Not a usable pool: ${cidr}`);
  const value = family === 4 ? parseIpv4(address) : parseIpv6(address);
  const hostBits = BigInt(bits - prefix);
  return { base: (value >> hostBits) << hostBits, bits, prefix };
}

/** The largest host offset usable in both pools (IPv4 broadcast excluded). */
export function poolCapacity(ipv4Cidr: string, ipv6Cidr: string): number {
  const v4 = parsePool(ipv4Cidr, 4);
  const v6 = parsePool(ipv6Cidr, 6);
  const v4Hosts = (1n << BigInt(32 - v4.prefix)) - 2n;
  const v6Hosts = (1n << BigInt(128 - v6.prefix)) - 1n;
  const smaller = v4Hosts < v6Hosts ? v4Hosts : v6Hosts;
  return Number(smaller > 2_000_000_000n ? 2_000_000_000n : smaller);
}

export function addressesAt(
  ipv4Cidr: string,
  ipv6Cidr: string,
  index: number,
): { ipv4: string; ipv6: string } {
  if (!Number.isInteger(index) || index < 1 || index > poolCapacity(ipv4Cidr, ipv6Cidr)) {
    throw new Error(`Host offset ${index} is outside the pool`);
  }
  const v4 = parsePool(ipv4Cidr, 4);
  const v6 = parsePool(ipv6Cidr, 6);
  return { ipv4: formatIpv4(v4.base + BigInt(index)), ipv6: formatIpv6(v6.base + BigInt(index)) };
}

export function isValidPool(cidr: string, family: 4 | 6): boolean {
  try {
    parsePool(cidr, family);
    return true;
  } catch {
    return false;
  }
}
