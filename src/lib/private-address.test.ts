import assert from 'node:assert/strict';
import type dns from 'node:dns';
import { test } from 'node:test';
import { INTERNAL_ADDRESS, internalLiteral, isInternalAddress, publicOnlyLookup } from './private-address.js';

/** Every way of writing an internal address in a URL, and what `new URL` makes of it. */
const SPELLINGS: Array<[url: string, address: string]> = [
  ['http://127.0.0.1/', '127.0.0.1'],
  ['http://2130706433/', '127.0.0.1'], // decimal
  ['http://0x7f000001/', '127.0.0.1'], // hex
  ['http://0x7f.1/', '127.0.0.1'], // hex, short form
  ['http://0177.0.0.1/', '127.0.0.1'], // octal
  ['http://127.1/', '127.0.0.1'], // short form
  ['http://127.0.0.1./', '127.0.0.1'], // trailing dot
  ['http://%31%32%37.0.0.1/', '127.0.0.1'], // percent-encoded
  ['http://１２７.０.０.１/', '127.0.0.1'], // full-width digits
  ['http://0/', '0.0.0.0'],
  ['http://[::]/', '::'],
  ['http://[::1]/', '::1'],
  ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'], // IPv4-mapped
  ['http://[::ffff:7f00:1]/', '::ffff:7f00:1'], // IPv4-mapped, hex
  ['http://[0:0:0:0:0:ffff:127.0.0.1]/', '::ffff:7f00:1'], // IPv4-mapped, long form
  ['http://[::ffff:10.0.0.1]/', '::ffff:a00:1'],
  ['http://[::127.0.0.1]/', '::7f00:1'], // IPv4-compatible
  ['http://[::7f00:1]/', '::7f00:1'], // IPv4-compatible, hex
  ['http://[::ffff:0:127.0.0.1]/', '::ffff:0:7f00:1'], // IPv4-translated
  ['http://[64:ff9b::127.0.0.1]/', '64:ff9b::7f00:1'], // NAT64 of loopback
  ['http://[64:ff9b::a9fe:a9fe]/', '64:ff9b::a9fe:a9fe'], // NAT64 of the metadata service
  ['http://[64:ff9b:1::1]/', '64:ff9b:1::1'], // local-use NAT64
  ['http://[2002:7f00:1::]/', '2002:7f00:1::'], // 6to4 of loopback
  ['http://[2002:c0a8:101::1]/', '2002:c0a8:101::1'], // 6to4 of 192.168.1.1
  ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', '2001:0:4136:e378:8000:63bf:80ff:fffe'], // Teredo
  ['http://169.254.169.254/', '169.254.169.254'],
  ['http://[fd00:ec2::254]/', 'fd00:ec2::254'],
];

test('every spelling of an internal address in a URL is recognised', () => {
  for (const [url, address] of SPELLINGS) assert.equal(internalLiteral(new URL(url)), address, url);
});

test('internal addresses: every IANA special-purpose range that is not global, and multicast', () => {
  const internal = [
    '0.1.2.3', '10.1.2.3', '100.64.0.1', '100.127.255.254', '127.255.255.255', '169.254.0.1', '172.16.0.1', '172.31.255.255',
    '192.0.0.8', '192.0.2.1', '192.88.99.1', '192.168.1.1', '198.18.0.1', '198.19.255.255', '198.51.100.7', '203.0.113.9',
    '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
    '::', '::1', '::2', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'febf::1', 'fec0::1', 'ff02::1', '100::1',
    '2001::1', '2001:db8::1', '3fff::1', '5f00::1', '::ffff:192.168.0.1', '::ffff:0:a00:1', '64:ff9b::c0a8:1', '2002:a00:1::',
    'not-an-ip', '',
  ];
  for (const address of internal) assert.ok(isInternalAddress(address), `${address} is internal`);
  const external = [
    '8.8.8.8', '93.184.216.34', '1.1.1.1', '100.63.255.255', '100.128.0.1', '172.15.255.255', '172.32.0.1', '192.0.3.1',
    '192.169.0.1', '198.20.0.1', '223.255.255.255',
    '2606:4700::1111', '2001:4860:4860::8888', '2a00:1450::1', '::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::808:808', '2002:808:808::1',
  ];
  for (const address of external) assert.ok(!isInternalAddress(address), `${address} is not internal`);
});

/** Calls the lookup as Node's sockets do, returning what it answered. */
function lookup(hostname: string, options: dns.LookupOptions): Promise<{ error: NodeJS.ErrnoException | null; answer: unknown[] }> {
  return new Promise((resolve) => {
    (publicOnlyLookup as unknown as (h: string, o: dns.LookupOptions, cb: (...args: unknown[]) => void) => void)(hostname, options, (error, ...answer) =>
      resolve({ error: error as NodeJS.ErrnoException | null, answer }),
    );
  });
}

test('the connect-time lookup refuses a name that resolves to an internal address, in every form Node asks', async () => {
  // localhost stands in for a rebound name: it resolves to loopback here, whatever it resolved to before.
  for (const options of [{}, { all: true }, { family: 4 }, { family: 4, all: true }, { hints: 0 }] as dns.LookupOptions[]) {
    const { error } = await lookup('localhost', options);
    assert.equal(error?.code, INTERNAL_ADDRESS, JSON.stringify(options));
    assert.match(error.message, /^localhost resolves to (127\.0\.0\.1|::1), which is an internal .* set LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS=true/);
  }
  // The resolver's own spellings of loopback are refused too, should a name ever reach it unnormalised.
  for (const name of ['2130706433', '0x7f.1', '127.1']) assert.equal((await lookup(name, {})).error?.code, INTERNAL_ADDRESS, name);
});

test('the connect-time lookup passes a public address through, in the shape asked for', async () => {
  assert.deepEqual(await lookup('93.184.216.34', {}), { error: null, answer: ['93.184.216.34', 4] });
  assert.deepEqual(await lookup('93.184.216.34', { all: true }), { error: null, answer: [[{ address: '93.184.216.34', family: 4 }]] });
  assert.deepEqual(await lookup('2606:4700::1111', { all: true }), { error: null, answer: [[{ address: '2606:4700::1111', family: 6 }]] });
});
