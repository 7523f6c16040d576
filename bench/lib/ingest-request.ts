import http from 'node:http';

/**
 * One ingest request as the benchmarks' senders make it: the body as given, the hostname and the
 * sender's clock in the query, the ingestion key in the apikey header. Resolves with the status
 * code, or 0 when the connection failed.
 */
export function postIngest(agent: http.Agent, target: URL, key: string, body: Buffer, hostname: string): Promise<number> {
  return new Promise<number>((resolve) => {
    const request = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: 'POST',
        path: `/logs/ingest?hostname=${hostname}&now=${Date.now()}`,
        headers: { apikey: key, 'content-type': 'application/json', 'content-length': body.length },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', () => resolve(0));
    request.end(body);
  });
}
