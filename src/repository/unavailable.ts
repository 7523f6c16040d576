/**
 * Whether an error says the configuration database could not be reached or could not take the
 * query just now (a connection refused or cut, a server shutting down or out of connections, a
 * locked SQLite file), as opposed to a query or a program that is wrong. The first kind may
 * succeed when tried again; the second never will.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current = error;
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    const found: Error = current;
    const code = (found as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (NETWORK_CODES.has(code)) return true;
      // PostgreSQL's SQLSTATE: class 08 connection exception, 53 insufficient resources, 57P01-03
      // the server shutting down or starting, 40001/40P01 a transaction to try again.
      if (/^(08|53)[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code) || code === '40001' || code === '40P01') return true;
      // better-sqlite3: the file busy or locked by another writer, the disk full or failing.
      if (/^SQLITE_(BUSY|LOCKED|FULL|IOERR)/.test(code)) return true;
    }
    // node-postgres says these in words only.
    if (PG_MESSAGES.some((pattern) => pattern.test(found.message))) return true;
    current = found.cause;
  }
  return false;
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

const PG_MESSAGES = [/^Connection terminated/, /^timeout exceeded when trying to connect/, /Client has encountered a connection error/];
