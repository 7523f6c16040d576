import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

/**
 * Addresses webhooks and paging may not reach unless the operator allows it: every IANA
 * special-purpose range that is not globally reachable, plus multicast. Cloud metadata services
 * (169.254.169.254, fd00:ec2::254) fall in these ranges too.
 */
const IPV4_RANGES: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 connects to the host itself
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // retired 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255
];
const IPV6_RANGES: Array<[string, number]> = [
  ['::', 96], // unspecified, loopback, and the retired IPv4-compatible ::a.b.c.d, which nothing legitimate uses
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments, Teredo included (its IPv4 address is obfuscated, so judged whole)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // retired site-local, still routed inside some networks
  ['ff00::', 8], // multicast
];

const INTERNAL = new net.BlockList();
for (const [prefix, bits] of IPV4_RANGES) INTERNAL.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of IPV6_RANGES) INTERNAL.addSubnet(prefix, bits, 'ipv6');

/**
 * IPv6 forms that carry an IPv4 address and reach it: judged by the address they carry, so that
 * [::ffff:7f00:1] or [64:ff9b::a00:1] is as internal as 127.0.0.1 or 10.0.0.1. `at` is the
 * 16-bit group where the IPv4 address starts.
 */
const IPV4_CARRIERS: Array<{ prefix: number[]; at: number }> = [
  { prefix: [0, 0, 0, 0, 0, 0xffff], at: 6 }, // IPv4-mapped ::ffff:a.b.c.d
  { prefix: [0, 0, 0, 0, 0xffff, 0], at: 6 }, // IPv4-translated ::ffff:0:a.b.c.d
  { prefix: [0x64, 0xff9b, 0, 0, 0, 0], at: 6 }, // NAT64 64:ff9b::a.b.c.d
  { prefix: [0x2002], at: 1 }, // 6to4 2002:aabb:ccdd::
];

/** The eight 16-bit groups of a valid IPv6 address (any zone id dropped). */
function ipv6Groups(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const groups = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const [head, tail] = text.split('::');
  if (tail === undefined) return groups(head);
  const left = groups(head);
  const right = groups(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function carriedIpv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  const carrier = IPV4_CARRIERS.find(({ prefix }) => prefix.every((group, index) => groups[index] === group));
  if (!carrier) return undefined;
  const [high, low] = groups.slice(carrier.at, carrier.at + 2);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** True for loopback, private and reserved addresses however written; true for anything not an address. */
export function isInternalAddress(address: string): boolean {
  switch (net.isIP(address)) {
    case 4:
      return INTERNAL.check(address, 'ipv4');
    case 6: {
      if (INTERNAL.check(address, 'ipv6')) return true;
      const carried = carriedIpv4(address);
      return carried !== undefined && INTERNAL.check(carried, 'ipv4');
    }
    default:
      return true;
  }
}

/** Marks a refusal on the error, which reaches the request's error event as it was made. */
export const INTERNAL_ADDRESS = 'LOGSTEAD_INTERNAL_ADDRESS';

/** The one wording of a refusal: why, and how the operator can allow it. */
export function internalAddressRefusal(host: string, address: string): string {
  const subject = host === address ? address : `${host} resolves to ${address}, which`;
  return `${subject} is an internal (loopback, private or reserved) address; set LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS=true to allow it`;
}

/**
 * The internal address a URL names literally, if any. `new URL` has already turned every spelling
 * (2130706433, 0x7f.1, 0177.0.0.1, 127.1, [::ffff:127.0.0.1]) into one canonical form. Node looks
 * nothing up for a literal address, so the lookup below never sees these.
 */
export function internalLiteral(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return net.isIP(host) && isInternalAddress(host) ? host : undefined;
}

/**
 * A DNS lookup for sockets that refuses internal addresses. It checks every address a name
 * resolves to, at connect time, on the addresses the socket is then given: a name that resolves
 * to a public address when saved and an internal one when used (DNS rebinding) is refused.
 * It answers in both shapes Node asks for: one address, or all of them (`all: true`, which
 * Node 20 uses to try each address family in turn).
 */
export const publicOnlyLookup = ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error);
    const internal = addresses.find((entry) => isInternalAddress(entry.address));
    if (internal) {
      const refusal: NodeJS.ErrnoException = new Error(internalAddressRefusal(hostname, internal.address));
      refusal.code = INTERNAL_ADDRESS;
      return callback(refusal);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}) as unknown as net.LookupFunction;

/**
 * Agents whose every socket was opened through publicOnlyLookup. Kept apart from the global
 * agents so that a kept-alive socket opened without the check is never reused for a request
 * that needs it: a reused socket skips the lookup. Keep-alive and timeout as Node's global agents.
 */
export const publicOnlyAgents = {
  'http:': new http.Agent({ keepAlive: true, timeout: 5000, lookup: publicOnlyLookup }),
  'https:': new https.Agent({ keepAlive: true, timeout: 5000, lookup: publicOnlyLookup }),
};
