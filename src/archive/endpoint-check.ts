import dns from 'node:dns/promises';
import net from 'node:net';
import { isInternalAddress } from '../lib/private-address.js';

/**
 * A bucket endpoint that resolves, at the time of use, to a loopback, private or reserved address
 * while LOGSTEAD_ALLOW_PRIVATE_ARCHIVES=false. Saving checked the endpoint once; a host name can be
 * pointed elsewhere afterwards (DNS rebinding), so each use checks again.
 */
export class PrivateArchiveEndpoint extends Error {
  override readonly name = 'PrivateArchiveEndpoint';

  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(
      `${host === address ? address : `${host} resolves to ${address}, which`} is an internal (loopback, private or reserved) address, which this server does not archive to (LOGSTEAD_ALLOW_PRIVATE_ARCHIVES=false)`,
    );
  }
}

/**
 * Refuses (PrivateArchiveEndpoint) a host that is, or now resolves to, an internal address. A name
 * that does not resolve is left to the connection to report. The engine's s3() and the S3 client
 * resolve the name again when they connect: the S3 client through publicOnlyLookup (bucket.ts),
 * which refuses then too; the engine's resolution cannot be hooked, so for a search a name
 * re-pointed in the instant between this check and its connection is not caught.
 */
export async function refuseInternalHost(host: string): Promise<void> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (net.isIP(bare)) {
    if (isInternalAddress(bare)) throw new PrivateArchiveEndpoint(bare, bare);
    return;
  }
  let addresses: Array<{ address: string }>;
  try {
    addresses = await dns.lookup(bare, { all: true });
  } catch {
    return;
  }
  const internal = addresses.find((entry) => isInternalAddress(entry.address));
  if (internal) throw new PrivateArchiveEndpoint(bare, internal.address);
}

/** The host a bucket is reached at: the endpoint's, or the bucket's own name under it (virtual-hosted style). */
export function bucketHost(target: { endpoint?: string; bucket: string; forcepathstyle: boolean }): string | undefined {
  if (!target.endpoint) return undefined; // AWS itself
  const host = new URL(target.endpoint).hostname;
  return target.forcepathstyle ? host : `${target.bucket}.${host}`;
}

/** Checks a bucket's endpoint before use, unless private endpoints are allowed. */
export async function checkArchiveEndpoint(target: { endpoint?: string; bucket: string; forcepathstyle: boolean }, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = bucketHost(target);
  if (host !== undefined) await refuseInternalHost(host);
}
