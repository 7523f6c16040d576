import type { IncomingMessage } from 'node:http';

/** How much of an upload is read and thrown away, at most, so that its client can read our answer. */
export interface DrainLimits {
  maxBytes: number;
  maxMs: number;
}

/**
 * An error answered before the request body was read (a body over the limit, a corrupt gzip
 * stream) closes the connection. Closing while the client still uploads makes the kernel reset
 * the connection, and a client that reads only after sending loses the answer to EPIPE or
 * ECONNRESET. So the rest of the upload is read and discarded first, up to `limits`: past them
 * the client is not worth waiting for and gets the answer as it is.
 *
 * Resolves once the request has ended, failed, or used up its limits; never rejects.
 */
export function drainRequest(raw: IncomingMessage, limits: DrainLimits): Promise<void> {
  if (raw.complete || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let discarded = 0;
    const finish = () => {
      clearTimeout(timer);
      raw.removeListener('data', onData);
      raw.removeListener('end', finish);
      raw.removeListener('close', finish);
      raw.removeListener('error', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > limits.maxBytes) finish();
    };
    const timer = setTimeout(finish, limits.maxMs);
    timer.unref();
    // Whatever the body was piped into (an inflater) stops being fed: a compressed bomb costs
    // only its compressed bytes here, and no inflating.
    raw.unpipe();
    raw.on('data', onData);
    raw.once('end', finish);
    raw.once('close', finish);
    raw.once('error', finish);
    raw.resume();
  });
}
