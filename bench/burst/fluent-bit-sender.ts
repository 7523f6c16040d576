/**
 * Sends one chunk as Fluent Bit's LogDNA output does, with `Retry_Limit 1`: POST /logs/ingest with
 * Basic auth (the key as user), `now` in whole seconds and `Content-Type: application/json;
 * charset=UTF-8`; a chunk refused (any non-2xx answer or a connection error) is tried once more
 * after the scheduler's delay, and dropped if refused again. Fluent Bit does not read Retry-After.
 */
import http from 'node:http';

export interface Chunk {
  /** A host name of its own, so the lines stored for each chunk can be counted afterwards. */
  hostname: string;
  body: Buffer;
  lines: number;
}

/** One HTTP attempt: its status (0 for a connection error), what the answer carried, and how long it took. */
export interface Attempt {
  status: number;
  ms: number;
  /** The connection error's code (ECONNRESET, EPIPE, ...), when there was no answer. */
  error?: string;
  retryAfter?: string;
  /** A non-2xx answer whose JSON body was read to the end. */
  readableBody?: boolean;
}

export interface Delivery {
  chunk: Chunk;
  attempts: Attempt[];
  acknowledged: boolean;
  /** From the first attempt's start to the acknowledgement (retry delay included). */
  ackMs?: number;
}

/** No answer in this long counts as a connection error (Fluent Bit's own I/O timeout is off by default). */
const ATTEMPT_TIMEOUT_MS = 120_000;

export function fluentBitSender(url: string, key: string, retryDelayMs: () => number) {
  const target = new URL(url);
  // One keep-alive connection per chunk in flight: Fluent Bit flushes a backlog with a task per chunk.
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const authorization = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;

  const attempt = (chunk: Chunk): Promise<Attempt> =>
    new Promise((resolve) => {
      const started = performance.now();
      let settled = false;
      const settle = (result: Omit<Attempt, 'ms'>) => {
        if (settled) return;
        settled = true;
        resolve({ ...result, ms: performance.now() - started });
      };
      const request = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          method: 'POST',
          path: `/logs/ingest?hostname=${encodeURIComponent(chunk.hostname)}&mac=&ip=&now=${Math.floor(Date.now() / 1000)}`,
          headers: {
            authorization,
            'content-type': 'application/json; charset=UTF-8',
            'content-length': chunk.body.length,
            'user-agent': 'Fluent-Bit',
          },
          timeout: ATTEMPT_TIMEOUT_MS,
        },
        (response) => {
          const status = response.statusCode ?? 0;
          const retryAfter = response.headers['retry-after'];
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (piece: string) => (text += piece));
          response.on('end', () => {
            let readableBody = false;
            try {
              readableBody = typeof JSON.parse(text) === 'object';
            } catch {
              readableBody = false;
            }
            settle({ status, retryAfter, readableBody });
          });
          // An answer whose body is cut off: the status came, the message did not.
          response.on('error', () => settle({ status, retryAfter, readableBody: false }));
        },
      );
      request.on('timeout', () => request.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
      request.on('error', (error: NodeJS.ErrnoException) => settle({ status: 0, error: error.code ?? error.message }));
      request.end(chunk.body);
    });

  return {
    async deliver(chunk: Chunk): Promise<Delivery> {
      const started = performance.now();
      const attempts: Attempt[] = [];
      for (let tries = 0; tries < 2; tries++) {
        if (tries > 0) await new Promise((resolve) => setTimeout(resolve, retryDelayMs()));
        const result = await attempt(chunk);
        attempts.push(result);
        if (result.status >= 200 && result.status < 300) return { chunk, attempts, acknowledged: true, ackMs: performance.now() - started };
      }
      return { chunk, attempts, acknowledged: false };
    },
    close: () => agent.destroy(),
  };
}
