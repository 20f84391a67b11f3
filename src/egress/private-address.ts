import { BlockList, isIP } from "node:net";

const PRIVATE = new BlockList();
for (const [address, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  PRIVATE.addSubnet(address, prefix, "ipv4");
for (const [address, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
] as const)
  PRIVATE.addSubnet(address, prefix, "ipv6");

/**
 * Whether an address is one a page must not reach through blockPrivateNetworks: unspecified, loopback, link-local,
 * private (RFC 1918, unique local), CGNAT, benchmarking, multicast and reserved, and IPv4 written inside IPv6
 * (`::ffff:127.0.0.1`, NAT64) judged as the IPv4 address it carries.
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, "ipv4");
  if (family !== 6) return true;
  const embedded = embeddedIpv4(address.toLowerCase());
  if (embedded !== null) return PRIVATE.check(embedded, "ipv4");
  return PRIVATE.check(address, "ipv6");
}

// ::ffff:a.b.c.d, ::ffff:7f00:1, ::a.b.c.d (deprecated compatible form) and 64:ff9b::a.b.c.d carry an IPv4 address.
function embeddedIpv4(address: string): string | null {
  const match = /^(?:::ffff:(?:0:)?|::|64:ff9b::)([0-9a-f.:]+)$/.exec(address);
  if (!match?.[1]) return null;
  const tail = match[1];
  if (isIP(tail) === 4) return tail;
  const words = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(tail);
  if (!words?.[1] || !words[2]) return null;
  const high = parseInt(words[1], 16);
  const low = parseInt(words[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}
