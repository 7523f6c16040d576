import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { exited, serveProcess } from './testing/process.js';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-banner-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const version = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

test('start prints one block saying what is served where, with the real data directory and credentials path', async () => {
  // LOGSTEAD_DATA_DIR reached through a symbolic link: the banner names the real directory.
  const real = fs.mkdirSync(path.join(scratch, 'real'), { recursive: true })!;
  fs.symlinkSync(real, path.join(scratch, 'link'));
  const dataDir = path.join(scratch, 'link', 'data');
  const realDataDir = path.join(fs.realpathSync(real), 'data');
  const env = { LOGSTEAD_RETENTION_DAYS: '12', LOGSTEAD_LOG_LEVEL: 'warn', LOGSTEAD_SYSLOG_UDP_PORT: '0', LOGSTEAD_RELP_PORT: '0' };

  const first = await serveProcess(dataDir, env);
  const credentials = path.join(realDataDir, 'initial-credentials.json');
  const keys = JSON.parse(fs.readFileSync(credentials, 'utf8'));
  const banner = first.output().slice(first.output().indexOf('Logstead '));
  const block = banner.slice(0, banner.indexOf('\n\n'));
  assert.match(block, new RegExp(`^Logstead ${version.replaceAll('.', '\\.')} is listening on ${first.url}\n`));
  for (const [name, value] of [
    ['Ingest', `${first.url}/logs/ingest?hostname=<host>`],
    ['Also takes', `OTLP ${first.url}/v1/logs, Elasticsearch ${first.url}/_bulk, Loki ${first.url}/loki/api/v1/push`],
    ['Metrics', `${first.url}/metrics`],
    ['Health', `${first.url}/healthz`],
    ['Data', realDataDir],
    ['Credentials', credentials],
    ['Log level', 'warn'],
    ['Retention', '12 days by default'],
  ]) {
    assert.match(block, new RegExp(`\n  ${name} +${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), `${name} in:\n${block}`);
  }
  assert.match(block, /\n {2}Log viewer +(http:\/\/\S+\/|not built)/);
  // The listeners that are on, with the ports they really bound (0 asked for any).
  assert.match(block, /\n {2}Syslog +UDP 127\.0\.0\.1:[1-9]\d*, RELP 127\.0\.0\.1:[1-9]\d*\n/);
  // The first start's keys follow, with the same real path.
  assert.match(banner, new RegExp(`Created the default organisation. Its keys are shown once, and saved to\n  ${credentials.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(readable only by you\\)`));
  assert.match(banner, new RegExp(`ingestion key  ${keys.ingestionKey}`));
  first.child.kill('SIGTERM');
  assert.deepEqual(await exited(first.child), { code: 0, signal: null });

  const second = await serveProcess(dataDir, env);
  assert.doesNotMatch(second.output(), /Created the default organisation/);
  assert.doesNotMatch(second.output(), new RegExp(keys.ingestionKey), 'keys are shown once');
  assert.match(second.output(), new RegExp(`\n  Credentials +${credentials.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  second.child.kill('SIGTERM');
  assert.deepEqual(await exited(second.child), { code: 0, signal: null });
});
