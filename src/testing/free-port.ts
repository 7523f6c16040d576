import net from 'node:net';

/**
 * A TCP port free on loopback now, for a listener that must come back on the same port after a
 * restart (a sender configured with it keeps sending there), where port 0 would move it.
 */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
