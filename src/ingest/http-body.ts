import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LIMITS } from '../wire/limits.js';
import type { IngestAdmission, Ticket } from './admission.js';

/**
 * What every ingest protocol over HTTP shares before its own parsing: the arrival time and
 * admission of a request (before its body is read), and compressed bodies inflated within the
 * body limit. Each protocol folder (mezmo/, otlp/, elasticsearch/, loki/) uses these and keeps only
 * its own dialect: which encodings it names in its errors, and how it reads the inflated body.
 */

/** A body's size from its headers, within the limit; undefined when it is compressed or unsized. */
export function plainBodyBytes(request: FastifyRequest): number | undefined {
  const length = Number(request.headers['content-length']);
  const encoded = !['', 'identity'].includes(String(request.headers['content-encoding'] ?? '').trim().toLowerCase());
  return !Number.isFinite(length) || length < 0 || encoded ? undefined : Math.min(length, LIMITS.bodyBytes);
}

/** What a body will take in memory once read: a compressed or unsized body is counted at the limit. */
export const expectedBodyBytes = (request: FastifyRequest): number => plainBodyBytes(request) ?? LIMITS.bodyBytes;

interface Arrival {
  /** When the request's headers arrived: the receive time, and the moment client clock drift is measured at. */
  at: number;
  ticket?: Ticket;
}

export interface Arrivals {
  /** Notes the arrival time, then waits for room among the bodies being read (admission.ts). */
  admit(request: FastifyRequest): Promise<void>;
  /** When the request arrived (now, for one that was never admitted). */
  arrivedAt(request: FastifyRequest): number;
  /** Frees the request's place: once its lines count in the store's queue, or when it ends. */
  release(request: FastifyRequest): void;
}

/**
 * Arrival and admission for a protocol's requests. Whatever ends a request (answered, refused,
 * or the client went away) frees its place. With `everyPost`, every POST of the plugin is
 * admitted before its body is read; otherwise the protocol calls `admit` where it needs to.
 */
export function trackArrivals(app: FastifyInstance, admission: IngestAdmission, options: { everyPost: boolean }): Arrivals {
  const arrivals = new WeakMap<FastifyRequest, Arrival>();
  const tracked: Arrivals = {
    async admit(request) {
      const arrival: Arrival = { at: Date.now() };
      arrivals.set(request, arrival);
      arrival.ticket = await admission.admit(expectedBodyBytes(request));
    },
    arrivedAt: (request) => arrivals.get(request)?.at ?? Date.now(),
    release: (request) => arrivals.get(request)?.ticket?.release(),
  };
  if (options.everyPost) {
    app.addHook('onRequest', async (request) => {
      if (request.method === 'POST') await tracked.admit(request);
    });
  }
  app.addHook('onResponse', async (request) => tracked.release(request));
  app.addHook('onRequestAbort', async (request) => tracked.release(request));
  return tracked;
}

/**
 * Inflates gzip and deflate request bodies before parsing, so that the 10 MB limit applies to the
 * inflated size and a small compressed bomb is refused with 413. `unsupported` is the protocol's
 * own error for another Content-Encoding.
 */
export function inflateRequestBodies(app: FastifyInstance, unsupported: (encoding: string) => Error): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    const encoding = String(request.headers['content-encoding'] ?? '').trim().toLowerCase();
    if (encoding === '' || encoding === 'identity') return payload;
    if (encoding !== 'gzip' && encoding !== 'x-gzip' && encoding !== 'deflate') throw unsupported(encoding.slice(0, 40));
    const inflate = encoding === 'deflate' ? zlib.createInflate() : zlib.createGunzip();
    // Fastify compares Content-Length with this count, not with the inflated length.
    let encodedBytes = 0;
    payload.on('data', (chunk: Buffer) => {
      encodedBytes += chunk.length;
      (inflate as unknown as { receivedEncodedLength: number }).receivedEncodedLength = encodedBytes;
    });
    payload.on('error', (error) => inflate.destroy(error));
    // A corrupt body fails the inflate. When the body is read, fastify hears of it through the
    // stream it reads; when it is never read (its content type refused first), nobody would, and an
    // unheard stream error ends the process. Once the request is over the error has nothing to do.
    inflate.on('error', () => {});
    // Past the limit fastify stops listening but would leave the inflater running through
    // whatever was sent: a 10 MB bomb is gigabytes of inflating for nobody. Stop it here, on the
    // same chunk that makes fastify answer 413 (this listener runs first).
    let inflatedBytes = 0;
    inflate.on('data', (chunk: Buffer) => {
      inflatedBytes += chunk.length;
      if (inflatedBytes > LIMITS.bodyBytes) {
        payload.unpipe(inflate);
        inflate.destroy();
      }
    });
    return payload.pipe(inflate) as unknown as Readable & typeof payload;
  });
}
