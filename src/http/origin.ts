/**
 * Whether a browser's Origin header names this server: the host the request was sent to, or the
 * configured public address (a reverse proxy may pass its own Host on). "null", unparsable values
 * and other hosts are foreign.
 */
export function isOwnOrigin(origin: string, host: string | undefined, publicUrl: string | undefined): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (host && parsed.host === host.toLowerCase()) return true;
  if (!publicUrl) return false;
  try {
    return parsed.origin === new URL(publicUrl).origin;
  } catch {
    return false;
  }
}
