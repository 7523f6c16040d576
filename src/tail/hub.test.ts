import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredLine } from '../store/types.js';
import { ClusterTail } from './cluster-tail.js';
import { TailHub, type TailRelay } from './hub.js';

const subscriber = () => ({ filters: {}, scope: null, matches: () => true, deliver: () => {} });

test('the hub says an organisation is read while a tail of it is open here, and only then', () => {
  const hub = new TailHub();
  assert.equal(hub.reads('acme'), false);
  const close = hub.subscribe('acme', subscriber());
  assert.equal(hub.reads('acme'), true);
  assert.equal(hub.reads('other'), false, "another organisation's tail does not count");
  close();
  assert.equal(hub.reads('acme'), false);
});

test('the hub says an organisation is read when a tail at another node wants its lines', () => {
  const hub = new TailHub();
  const forwarded: string[] = [];
  const relay: TailRelay = {
    changed: () => {},
    forward: (account: string, rows: StoredLine[]) => forwarded.push(`${account}:${rows.length}`),
    wants: (account: string) => account === 'acme',
    accessChanged: () => {},
  };
  hub.relay = relay;
  assert.equal(hub.reads('acme'), true);
  assert.equal(hub.reads('other'), false);
  hub.publish('acme', []);
  assert.deepEqual(forwarded, ['acme:0']);
});

test("a change of who may see what runs the checks of that organisation's tails here and tells the other nodes", () => {
  const hub = new TailHub();
  const toldOthers: string[] = [];
  hub.relay = { changed: () => {}, forward: () => {}, wants: () => false, accessChanged: (account) => toldOthers.push(account) };
  const checked: string[] = [];
  const stopAcme = hub.watchAccess('acme', () => checked.push('acme tail'));
  hub.watchAccess('other', () => checked.push('other tail'));
  hub.accessChanged('acme');
  assert.deepEqual(checked, ['acme tail'], "only the organisation's own tails check");
  assert.deepEqual(toldOthers, ['acme']);
  hub.checkAccess('acme'); // as told by another node: checks here, tells no one
  assert.deepEqual(checked, ['acme tail', 'acme tail']);
  assert.deepEqual(toldOthers, ['acme']);
  stopAcme();
  hub.accessChanged('acme');
  assert.deepEqual(checked, ['acme tail', 'acme tail'], 'a closed tail is not checked');
});

test("every open tail of an organisation is checked on a change, and one closing leaves the others' checks", async () => {
  const hub = new TailHub();
  const checked: string[] = [];
  const stopFirst = hub.watchAccess('acme', () => checked.push('first'));
  hub.watchAccess('acme', () => checked.push('second'));
  hub.checkAccess('acme');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(checked, ['first', 'second']);
  stopFirst();
  stopFirst(); // twice is harmless
  hub.checkAccess('acme');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(checked, ['first', 'second', 'second']);
});

test("a node's older announcement of its tails, heard after a newer one, does not hide the tail it announced since", async () => {
  const handlers = new Map<string, (message: string) => void>();
  const broadcast = { node: 'b', publish: async () => true, subscribe: (channel: string, handler: (message: string) => void) => void handlers.set(channel, handler), close: async () => {} };
  const hub = new TailHub();
  const cluster = new ClusterTail(broadcast, hub, () => {});
  cluster.start();
  const interest = (seq: number, tails: Array<{ id: string; account: string }>, ask?: boolean) =>
    handlers.get('logstead_tail_interest')!(JSON.stringify({ node: 'other', seq, ask, tails: tails.map((tail) => ({ ...tail, filters: {}, scope: null })) }));
  // A tail moving to a new scope: announced gone (2), then back under a new id (3); 3 arrives first.
  interest(1, [{ id: 'old', account: 'acme' }]);
  interest(3, [{ id: 'new', account: 'acme' }]);
  interest(2, []);
  assert.equal(cluster.wants('acme'), true, 'the stale empty announcement is ignored');
  // A restarted node counts from 1 again, and asks.
  interest(1, [], true);
  assert.equal(cluster.wants('acme'), false);
  cluster.stop();
});
