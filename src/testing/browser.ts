import fs from 'node:fs';

/** The Chromium the browser tests drive: Debian's by default (npm cannot download browsers here). */
export const CHROMIUM = process.env.LOGSTEAD_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Why the browser tests cannot run here, or undefined when they can. Without Chromium they are
 * reported as skipped, so `npm test` passes on a machine without a browser; with
 * LOGSTEAD_REQUIRE_BROWSER=true (CI sets it) a missing browser fails the run instead.
 */
export function browserMissing(): string | undefined {
  if (fs.existsSync(CHROMIUM)) return undefined;
  const reason = `no Chromium at ${CHROMIUM}: install it (apt-get install chromium) or set LOGSTEAD_CHROMIUM to run the browser tests`;
  if (/^(1|true|yes)$/i.test(process.env.LOGSTEAD_REQUIRE_BROWSER ?? '')) throw new Error(`LOGSTEAD_REQUIRE_BROWSER is set, but there is ${reason}`);
  return reason;
}
