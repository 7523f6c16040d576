import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SettingsError, loadSettings } from './settings.js';

test('address settings must be URLs of the right kind, and say so by name', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['LOGSTEAD_PUBLIC_URL', 'nope', /LOGSTEAD_PUBLIC_URL must be an http:\/\/ or https:\/\/ address .*got "nope"/],
    ['LOGSTEAD_PUBLIC_URL', 'ftp://logs.example.com', /LOGSTEAD_PUBLIC_URL must be/],
    ['LOGSTEAD_SMTP_URL', 'notaurl', /LOGSTEAD_SMTP_URL must be an smtp:\/\/ or smtps:\/\/ address such as smtp:\/\/user:pass@mail.example:587, got "notaurl"/],
    ['LOGSTEAD_SMTP_URL', 'https://mail.example', /LOGSTEAD_SMTP_URL must be/],
    ['LOGSTEAD_PAGING_URL', 'nope', /LOGSTEAD_PAGING_URL must be an http:\/\/ or https:\/\/ address/],
  ];
  for (const [name, value, message] of cases) {
    assert.throws(() => loadSettings({ [name]: value }), (error: unknown) => error instanceof SettingsError && message.test(error.message), `${name}=${value}`);
  }
  const settings = loadSettings({
    LOGSTEAD_PUBLIC_URL: 'https://logs.example.com/',
    LOGSTEAD_SMTP_URL: 'smtps://user:pass@mail.example:465',
    LOGSTEAD_PAGING_URL: 'http://127.0.0.1:9000/enqueue',
  });
  assert.equal(settings.publicUrl, 'https://logs.example.com');
  assert.equal(settings.smtpUrl, 'smtps://user:pass@mail.example:465');
  assert.equal(settings.pagingUrl, 'http://127.0.0.1:9000/enqueue');
  assert.equal(loadSettings({}).pagingUrl, 'https://events.pagerduty.com/v2/enqueue');
  assert.equal(loadSettings({}).smtpUrl, undefined);
});

test('sign-in limits default to 10 wrong keys per address per 15 minutes and 100 per minute overall', () => {
  const defaults = loadSettings({});
  assert.equal(defaults.signInFailuresPerAddress, 10);
  assert.equal(defaults.signInFailuresPerMinute, 100);
  const set = loadSettings({ LOGSTEAD_SIGNIN_FAILURES_PER_ADDRESS: '50', LOGSTEAD_SIGNIN_FAILURES_PER_MINUTE: '1000' });
  assert.equal(set.signInFailuresPerAddress, 50);
  assert.equal(set.signInFailuresPerMinute, 1000);
  assert.throws(() => loadSettings({ LOGSTEAD_SIGNIN_FAILURES_PER_ADDRESS: '0' }), /LOGSTEAD_SIGNIN_FAILURES_PER_ADDRESS must be an integer from 1/);
  assert.throws(() => loadSettings({ LOGSTEAD_SIGNIN_FAILURES_PER_MINUTE: 'lots' }), /LOGSTEAD_SIGNIN_FAILURES_PER_MINUTE must be an integer/);
});

test('LOGSTEAD_MAX_META_FIELDS_PER_DAY defaults to 500 and must be a whole number', () => {
  assert.equal(loadSettings({}).maxMetaFieldsPerDay, 500);
  assert.equal(loadSettings({ LOGSTEAD_MAX_META_FIELDS_PER_DAY: '0' }).maxMetaFieldsPerDay, 0);
  assert.throws(() => loadSettings({ LOGSTEAD_MAX_META_FIELDS_PER_DAY: 'lots' }), /LOGSTEAD_MAX_META_FIELDS_PER_DAY must be an integer/);
});

test('LOGSTEAD_ENGINE_CACHE_BYTES is a size of at least 16 MiB; unset, the engine keeps its default bound', () => {
  assert.equal(loadSettings({}).engineCacheBytes, undefined);
  assert.equal(loadSettings({ LOGSTEAD_ENGINE_CACHE_BYTES: '1GiB' }).engineCacheBytes, 2 ** 30);
  assert.equal(loadSettings({ LOGSTEAD_ENGINE_CACHE_BYTES: '16MiB' }).engineCacheBytes, 16 * 2 ** 20);
  assert.throws(() => loadSettings({ LOGSTEAD_ENGINE_CACHE_BYTES: '15MiB' }), /LOGSTEAD_ENGINE_CACHE_BYTES must be at least 16MiB, got "15MiB"/);
  assert.throws(() => loadSettings({ LOGSTEAD_ENGINE_CACHE_BYTES: 'lots' }), /LOGSTEAD_ENGINE_CACHE_BYTES must be a size in bytes/);
});

test('LOGSTEAD_CLICKHOUSE_URL names a ClickHouse server over HTTP; its errors never echo the password', () => {
  assert.equal(loadSettings({}).clickhouseUrl, undefined);
  assert.equal(loadSettings({ LOGSTEAD_CLICKHOUSE_URL: 'https://logstead:s3cret@ch.example:8443/logs' }).clickhouseUrl, 'https://logstead:s3cret@ch.example:8443/logs');
  for (const value of ['tcp://logstead:s3cret@ch.example:9000/logs', 'http://logstead:s3cret@ch.example:8123/a/b', 'logstead:s3cret@ch', 'http://logstead:s3cret@ch.example:8123/logs?x=1']) {
    assert.throws(
      () => loadSettings({ LOGSTEAD_CLICKHOUSE_URL: value }),
      (error: unknown) => error instanceof SettingsError && /LOGSTEAD_CLICKHOUSE_URL must be/.test(error.message) && !error.message.includes('s3cret'),
      value,
    );
  }
});

test('LOGSTEAD_CLICKHOUSE_CLUSTER is a plain cluster name, and only with a server', () => {
  const url = 'http://default:@127.0.0.1:8123/logs';
  assert.equal(loadSettings({ LOGSTEAD_CLICKHOUSE_URL: url, LOGSTEAD_CLICKHOUSE_CLUSTER: 'logs-cluster_1' }).clickhouseCluster, 'logs-cluster_1');
  assert.equal(loadSettings({ LOGSTEAD_CLICKHOUSE_URL: url }).clickhouseCluster, undefined);
  assert.throws(() => loadSettings({ LOGSTEAD_CLICKHOUSE_URL: url, LOGSTEAD_CLICKHOUSE_CLUSTER: "c' ; DROP" }), /LOGSTEAD_CLICKHOUSE_CLUSTER must be a cluster name/);
  assert.throws(() => loadSettings({ LOGSTEAD_CLICKHOUSE_CLUSTER: 'c' }), /LOGSTEAD_CLICKHOUSE_CLUSTER needs LOGSTEAD_CLICKHOUSE_URL/);
});

test('LOGSTEAD_DATABASE_URL names a PostgreSQL server; its errors never echo the password', () => {
  assert.equal(loadSettings({}).databaseUrl, undefined);
  const url = 'postgres://logstead:secret@db:5432/logstead';
  assert.equal(loadSettings({ LOGSTEAD_DATABASE_URL: url }).databaseUrl, url);
  for (const bad of ['mysql://logstead:secret@db/logstead', 'logstead:secret@db', 'postgres://']) {
    assert.throws(
      () => loadSettings({ LOGSTEAD_DATABASE_URL: bad }),
      (error: Error) => /LOGSTEAD_DATABASE_URL must be a postgres:\/\/ address/.test(error.message) && !error.message.includes('secret'),
    );
  }
});

test('LOGSTEAD_TRUST_PROXY is off by default, and takes true, a hop count, or addresses and ranges', () => {
  assert.equal(loadSettings({}).trustProxy, false);
  assert.equal(loadSettings({ LOGSTEAD_TRUST_PROXY: 'true' }).trustProxy, true);
  assert.equal(loadSettings({ LOGSTEAD_TRUST_PROXY: '2' }).trustProxy, 2);
  assert.equal(loadSettings({ LOGSTEAD_TRUST_PROXY: ' 10.0.0.5, 10.1.0.0/16,::1 ' }).trustProxy, '10.0.0.5,10.1.0.0/16,::1');
  for (const bad of ['yes please', '10.0.0.0/33', 'lb.internal', '10.0.0.1/8/9']) {
    assert.throws(() => loadSettings({ LOGSTEAD_TRUST_PROXY: bad }), /LOGSTEAD_TRUST_PROXY must be true, a number of proxy hops, or addresses/);
  }
});
