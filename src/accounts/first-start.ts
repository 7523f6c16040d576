import fs from 'node:fs';
import path from 'node:path';
import type { Accounts, NewAccount } from './accounts.js';

export const CREDENTIALS_FILE = 'initial-credentials.json';

export interface FirstStartCredentials extends NewAccount {
  ingestUrl: string;
  apiUrl: string;
  /** The one-time link that makes whoever opens it the organisation's owner. */
  ownerLink: string;
}

/**
 * On the first start against empty stores, creates the default organisation and saves its keys to
 * a file only the owner can read; keys are stored hashed, so this is the one copy. Several nodes
 * starting at once on shared stores create exactly one; only the node that created it writes the
 * file. Returns null when organisations already exist. `ownerLink` issues the one-time link that
 * makes its opener the owner (people/one-time-links.ts).
 */
export async function createDefaultOrganisation(
  accounts: Accounts,
  dataDir: string,
  publicUrl: string,
  ownerLink: (account: string) => Promise<string>,
): Promise<FirstStartCredentials | null> {
  const created = await accounts.createFirstAccount('default');
  if (!created) return null;
  const credentials: FirstStartCredentials = { ...created, ingestUrl: `${publicUrl}/logs/ingest`, apiUrl: publicUrl, ownerLink: await ownerLink(created.account) };
  const file = path.join(dataDir, CREDENTIALS_FILE);
  fs.writeFileSync(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  fs.chmodSync(file, 0o600); // in case the file already existed with looser permissions
  return credentials;
}

export function describeFirstStart(credentials: FirstStartCredentials, dataDir: string): string {
  return [
    'Created the default organisation. Its keys are shown once, and saved to',
    `  ${path.join(dataDir, CREDENTIALS_FILE)} (readable only by you):`,
    '',
    `  account        ${credentials.account}`,
    `  ingestion key  ${credentials.ingestionKey}`,
    `  service key    ${credentials.serviceKey}`,
    '',
    `  Send logs to   ${credentials.ingestUrl}?hostname=<host>   (apikey header or Basic auth with the ingestion key)`,
    `  Export from    ${credentials.apiUrl}/v1/export?from=<unix>&to=<unix>   (servicekey header)`,
    '',
    'Open this link once to become the owner and choose your password (it works once):',
    `  ${credentials.ownerLink}`,
    '',
  ].join('\n');
}
