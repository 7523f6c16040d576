import dns from 'node:dns';
import net from 'node:net';

/** Loopback, private, link-local, carrier-grade NAT, multicast and unspecified ranges. */
const INTERNAL = new net.BlockList();
for (const [prefix, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  INTERNAL.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) {
  INTERNAL.addSubnet(prefix, bits, 'ipv6');
}

export function isInternalAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return INTERNAL.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    return mapped ? INTERNAL.check(mapped[1], 'ipv4') : INTERNAL.check(address, 'ipv6');
  }
  return true; // not an address at all: refuse
}

/** Marks the refusal on the error, which reaches the request's error event as it was made. */
export const INTERNAL_ADDRESS = 'LOGSTEAD_INTERNAL_ADDRESS';

/**
 * A DNS lookup for http.request that refuses internal addresses. Checking at connect time, on the
 * address actually used, leaves no gap for a name that resolves differently a second time.
 */
export const publicOnlyLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 4);
    const list = addresses as dns.LookupAddress[];
    const internal = list.find((entry) => isInternalAddress(entry.address));
    if (internal) {
      const refusal: NodeJS.ErrnoException = new Error(`${hostname} resolves to ${internal.address}, an internal address; set LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS=true to allow it`);
      refusal.code = INTERNAL_ADDRESS;
      return callback(refusal, '', 4);
    }
    if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};
