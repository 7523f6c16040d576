import Fastify from 'fastify';

/**
 * The ingest ceiling: a fastify server that parses each JSON body and throws it away. Whatever
 * Logstead does beyond this (normalising, storing, fsync) is the cost the ratio shows.
 */
const app = Fastify({ bodyLimit: 10 * 1024 * 1024 });
let lines = 0;
app.post('/logs/ingest', async (request) => {
  lines += ((request.body as { lines: unknown[] }).lines ?? []).length;
  return { status: 'ok', batchID: String(lines) };
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
