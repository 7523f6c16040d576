import http from 'node:http';

export interface Upload {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The connection was reset (or the pipe broke) before the answer could be read. */
  reset?: boolean;
}

/**
 * POSTs a body in `pieces` written `pauseMs` apart, as a slow or busy shipper uploads it, and reads
 * the answer. A reset connection is reported, not thrown: some tests assert it never happens.
 */
export function uploadInPieces(url: string, headers: http.OutgoingHttpHeaders, body: Buffer, options: { pieces?: number; pauseMs?: number } = {}): Promise<Upload> {
  const { pieces = 1, pauseMs = 0 } = options;
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': body.length } });
    outgoing.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') resolve({ status: 0, headers: {}, body: '', reset: true });
      else reject(error);
    });
    const size = Math.ceil(body.length / pieces);
    let index = 0;
    const next = () => {
      if (index >= pieces) return void outgoing.end();
      outgoing.write(body.subarray(index * size, (index + 1) * size));
      index++;
      setTimeout(next, pauseMs);
    };
    next();
  });
}
