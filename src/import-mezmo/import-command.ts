import { parseArgs } from 'node:util';
import { askServerToReloadConfig } from '../http/control-socket.js';
import type { ConfigKysely } from '../repository/open.js';
import { loadSettings } from '../settings.js';
import { applyPlan, planImport } from './import.js';
import { ImportError, MezmoSource } from './source.js';

export const IMPORT_USAGE = 'Usage: logstead import-mezmo --service-key <key> --account <account> [--url https://api.mezmo.com] [--dry-run]';
export const DEFAULT_MEZMO_URL = 'https://api.mezmo.com';

export interface ImportCommandDeps {
  /** Opens the local configuration (LOGSTEAD_DATA_DIR or LOGSTEAD_DATABASE_URL), as `org create` does. */
  withConfiguration<T>(work: (db: ConfigKysely) => Promise<T>): Promise<T>;
  /** Where new members' one-time links point. */
  links: () => Promise<{ publicUrl: string; inviteHours: number }>;
  usageError: (message: string) => Error;
}

/**
 * `logstead import-mezmo`: reads an organisation's configuration through Mezmo's config API and
 * creates or updates it in a local organisation. Prints JSON Lines on stdout: first
 * `{"plan": ...}`, then (unless --dry-run) `{"result": ...}`; a summary for people goes to stderr.
 */
export async function importMezmoCommand(args: string[], deps: ImportCommandDeps): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: { url: { type: 'string', default: DEFAULT_MEZMO_URL }, 'service-key': { type: 'string' }, account: { type: 'string' }, 'dry-run': { type: 'boolean', default: false } },
    }));
  } catch (error) {
    throw deps.usageError(`${(error as Error).message}\n${IMPORT_USAGE}`);
  }
  const serviceKey = values['service-key'];
  const account = values.account;
  if (!serviceKey || !account) throw deps.usageError(IMPORT_USAGE);
  const source = new MezmoSource(values.url!, serviceKey);
  const dryRun = values['dry-run']!;

  const links = await deps.links();
  const outcome = await deps.withConfiguration(async (db) => {
    const { plan, steps } = await planImport(source, db, account, links);
    console.log(JSON.stringify({ plan: { ...plan, dryRun } }));
    console.error(
      `Plan: ${plan.create.length} to create, ${plan.update.length} to update, ${plan.keep.length} already there, ${plan.notCarriedOver.length} not carried over (or only in part)${dryRun ? '; --dry-run: nothing written' : ''}`,
    );
    if (dryRun) return undefined;
    return applyPlan(steps);
  });
  if (!outcome) return;

  // A running embedded server keeps views and presets in memory: tell it to re-read them. Cluster
  // nodes re-read them every second from the shared database on their own.
  let server: 'notified' | 'not running' | 'nothing written' = 'nothing written';
  if (outcome.created + outcome.updated > 0) {
    server = 'not running';
    const answer = await askServerToReloadConfig(loadSettings().dataDir, account);
    if (answer.running) {
      if (answer.status !== 200) throw new ImportError(`The configuration was written, but the running server could not reload it: ${answer.body?.error ?? answer.status}`);
      server = 'notified';
    }
  }
  console.log(JSON.stringify({ result: { ...outcome, server } }));
  console.error(`Created ${outcome.created}, updated ${outcome.updated}, failed ${outcome.failed.length}.`);
  for (const { email, link } of outcome.links) console.error(`New member ${email} chooses a password at ${link}`);
}
