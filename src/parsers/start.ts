import type { FastifyBaseLogger } from 'fastify';
import type { ServiceAuth } from '../http/service-auth.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { ConfigKysely } from '../repository/open.js';
import type { LogStore } from '../store/log-store.js';
import type { PendingLine } from '../ingest/normalise.js';
import { ParsingTime } from './apply.js';
import { parserRoutes } from './parser-routes.js';
import { ParserRules } from './parser-rules.js';
import { ParserStore } from './parser-store.js';

/**
 * How often every node re-reads the rules: half a second, so that a rule saved at another node
 * applies here within a second, with the read's own time to spare. It is one small query; rules
 * that did not change are not compiled again.
 */
const RELOAD_MS = 500;

export interface ParsersDeps {
  db: ConfigKysely;
  auth: ServiceAuth;
  store: LogStore;
  log: FastifyBaseLogger;
  now?: () => number;
  /** Counts lines left unparsed by an organisation's rules because its parsing time was spent. */
  skipped?: (lines: number) => void;
}

/**
 * Custom parsing rules (issue 28): /v1/config/parsers, and the compiled rules ingest applies,
 * loaded before ingest starts, reloaded at once after a write here and every second for writes
 * at other nodes (or by the CLI).
 */
export async function startParsers(deps: ParsersDeps): Promise<Subsystem & { apply: (account: string, lines: readonly PendingLine[]) => void }> {
  const now = deps.now ?? Date.now;
  const store = new ParserStore(deps.db, now);
  const rules = new ParserRules(store, (parser, error) => deps.log.warn({ err: error, parser: parser.id }, 'a saved parsing rule does not compile; it is skipped'));
  await rules.load();
  let lastWarned = 0;
  const time = new ParsingTime((account, lines) => {
    deps.skipped?.(lines);
    if (Date.now() - lastWarned < 10_000) return;
    lastWarned = Date.now();
    deps.log.warn({ account, lines }, "an organisation's custom parsing rules used their share of time this second; the rest of its lines are stored without them");
  });
  const reload = setInterval(() => rules.load().catch((error) => deps.log.error({ err: error }, 'reloading parsing rules failed')), RELOAD_MS);
  reload.unref();
  return {
    apply: (account, lines) => time.apply(account, lines, rules.forAccount(account)),
    routes: async (app) => {
      await app.register(parserRoutes, { auth: deps.auth, parsers: store, rules, time, store: deps.store, now });
    },
    async close() {
      clearInterval(reload);
      await rules.load().catch(() => {});
    },
  };
}
