import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import type { ParsedMail } from 'mailparser';
import WebSocket from 'ws';
import type { NewAccount } from '../accounts/accounts.js';
import { errors } from './errors.js';
import { declaredPermissions, leastRoleFor, type Role, roleAllows } from './permissions.js';
import { type MemberSession, type TestServer, basic, eventually, jsonLines, startTestServer } from '../testing/harness.js';
import { startSmtpReceiver } from '../testing/receivers.js';
import { S3RVER_KEY, S3RVER_SECRET, startStoreGate, startTestS3 } from '../testing/s3-server.js';
import { registeredRoutes } from '../testing/registered-routes.js';
import { VIEWER_DIR } from '../viewer/static-routes.js';

/**
 * Tenancy matrix: organisation A, with every credential it has, calls every route aimed at
 * organisation B's resources. Each call is refused (401/403/404, or the documented 400) or answers
 * with A's own data only; no answer carries a byte of B's: B's lines, names and addresses hold a
 * unique marker, and B's ids and keys are listed, and none may appear. Each call is made twice,
 * once with B's real ids and once with ids that exist nowhere, and the two answers must be the
 * same: a difference would tell A that B's resource exists.
 */

const hex = () => randomBytes(6).toString('hex');
const MARKER = `bsecret${hex()}`;
/** What A writes while aiming at B; it must never show up in B's data. */
const INTRUDER = `aintrude${hex()}`;
const A_LINE = `checkout own line ${hex()}`;

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
/** B archives to a bucket named with the marker, behind a gate that checks signatures. */
let s3: Awaited<ReturnType<typeof startTestS3>>;
let s3Gate: Awaited<ReturnType<typeof startStoreGate>>;
let A: NewAccount;
let B: NewAccount;
let session: { cookie: string; csrf: string };
/** A's members, signed in with their passwords: an admin, and a readonly member whom most writes refuse. */
let adminA: MemberSession;
let readonlyA: MemberSession;
/** The retention B sets for itself, which A must never be told. */
const B_RETENTION_DAYS = 23;
const nowS = Math.floor(Date.now() / 1000);
const WINDOW = `from=${nowS - 3600}&to=${nowS + 3600}`;

/** What A aims at: B's real resources, or a "ghost" organisation's that were never created. */
interface Target {
  account: string;
  host: string;
  app: string;
  word: string;
  viewid: string;
  presetid: string;
  categoryId: string;
  categoryName: string;
  keyId: string;
  serviceKeyId: string;
  lineId: string;
  lineTs: string;
  cursor: string;
  downloadId: string;
  downloadExpires: string;
  memberEmail: string;
  groupId: string;
  groupName: string;
  exclusionId: string;
  parserId: string;
  restoreId: string;
  boardId: string;
  graphId: string;
  boardCategoryName: string;
}
let b: Target;
let ghost: Target;
/** A's own e-mailed export link, whose signature A may try on B's export. */
let aLink: URL;

interface Got {
  status: number;
  text: string;
  json: any;
}

/** fetch, with a gzip body inflated so that B's data cannot hide in compressed bytes. */
async function call(method: string, urlPath: string, headers: Record<string, string> = {}, body?: unknown, ndjson?: string): Promise<Got> {
  const response = await fetch(`${server.url}${urlPath}`, {
    method,
    redirect: 'manual',
    headers: { ...headers, ...(ndjson !== undefined ? { 'content-type': 'application/x-ndjson' } : body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: ndjson ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  let bytes = Buffer.from(await response.arrayBuffer());
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = zlib.gunzipSync(bytes);
  const text = bytes.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

const asB = (method: string, urlPath: string, body?: unknown) => call(method, urlPath, { servicekey: B.serviceKey }, body);

async function ingest(key: string, hostname: string, lines: Array<Record<string, unknown>>) {
  const reply = await call('POST', `/logs/ingest?hostname=${hostname}`, { apikey: key }, { lines });
  assert.equal(reply.status, 200, reply.text);
}

function mailTexts(mail: ParsedMail): string {
  return [mail.subject, mail.text, mail.html, ...mail.attachments.map((file) => zlib.gunzipSync(file.content).toString())].join('\n');
}

const linkIn = (mail: ParsedMail) => new URL(/(http:\/\/\S+\/v1\/export\/download\/\S+)/.exec(mail.text ?? '')![1]);

before(async () => {
  smtp = await startSmtpReceiver();
  // Rows try wrong passwords and resets on purpose: the sign-in limits must not answer them instead.
  server = await startTestServer({ LOGSTEAD_SMTP_URL: smtp.url, LOGSTEAD_SIGNIN_FAILURES_PER_ADDRESS: '1000' });
  A = server.org;
  B = await server.createOrg('organisation B');

  // B's configuration: every name carries the marker, the category name does not (A sends it).
  const categoryName = `bcat${hex()}`;
  const category = await asB('POST', '/v1/config/categories/views', { name: categoryName });
  const email = { integration: 'email', emails: [`${MARKER}@example.com`], triggerlimit: 1, triggerinterval: '30', operator: 'presence', immediate: 'true', terminal: 'false' };
  const preset = await asB('POST', '/v1/config/presetalert', { name: `preset ${MARKER}`, channels: [email] });
  const word = `bword${hex()}`;
  const view = await asB('POST', '/v1/config/view', { name: `view ${MARKER}`, query: word, category: [categoryName], presetid: preset.json.presetid, channels: [email] });
  // B's board, in a category of boards, with a graph of B's word broken down by app.
  const boardCategoryName = `bboards${hex()}`;
  const boardCategory = await asB('POST', '/v1/config/categories/boards', { name: boardCategoryName });
  assert.equal(boardCategory.status, 200, boardCategory.text);
  const board = await asB('POST', '/v1/config/board', {
    name: `board ${MARKER}`,
    category: boardCategoryName,
    graphs: [{ title: `graph ${MARKER}`, query: word, measure: { type: 'count' }, breakdown: { field: 'app', limit: 5 } }],
  });
  assert.equal(board.status, 200, board.text);
  const key = await asB('POST', '/v1/config/keys?type=ingestion', { name: `key ${MARKER}` });
  const serviceKeyId = (await asB('GET', '/v1/config/keys?type=service')).json[0].id;
  // B's people: a group whose name is listed as B's, and a member in it whose address carries the marker.
  const groupName = `bgroup${hex()}`;
  const group = await asB('POST', '/v1/config/groups', { name: groupName, access_scopes: `app:${MARKER}` });
  const member = await asB('POST', '/v1/config/members', { email: `m${MARKER}@example.com`, role: 'admin', groups: [group.json?.id] });
  const retention = await asB('PUT', '/v1/config/retention', { days: B_RETENTION_DAYS });
  const exclusion = await asB('POST', '/v1/config/ingestion/exclusions', { title: `exclusion ${MARKER}`, apps: [`app${MARKER}`], query: MARKER });
  const indexRate = await asB('PUT', '/v1/config/index-rate', { max_lines: 777_777, threshold_alert: 'separate', frequency: 'daily', enabled: true, channels: { email: [`rate${MARKER}@example.com`] } });
  for (const reply of [category, preset, view, key, group, member, retention, exclusion, indexRate]) assert.equal(reply.status, 200, reply.text);
  // B's parsing rule would claim the checkout lines of anyone it reached.
  const parser = await asB('POST', '/v1/config/parsers', { name: `parser ${MARKER}`, pattern: '^checkout (?P<bfield>\\w+)', types: { bfield: 'string' } });
  for (const reply of [category, preset, view, key, group, member, retention, parser]) assert.equal(reply.status, 200, reply.text);
  s3 = await startTestS3(MARKER);
  s3Gate = await startStoreGate(s3.endpoint);
  const archiving = await asB('POST', '/v1/config/archiving', { integration: 's3', bucket: MARKER, endpoint: s3Gate.endpoint, accesskey: S3RVER_KEY, secretkey: S3RVER_SECRET, forcepathstyle: true });
  for (const reply of [category, preset, view, key, group, member, retention, archiving]) assert.equal(reply.status, 200, reply.text);
  // B's restore of its archive (nothing archived yet: it finishes at once, a row of B's to aim at).
  const restore = await asB('POST', '/v1/archive/restore', { from: nowS - 3600, to: nowS, query: word });
  assert.equal(restore.status, 202, restore.text);
  adminA = await server.signInAs(`admin.${hex()}@a.example.com`, 'admin');
  readonlyA = await server.signInAs(`readonly.${hex()}@a.example.com`, 'readonly');

  const host = `bhost${hex()}`;
  const app = `bapp${hex()}`;
  await ingest(
    B.ingestionKey,
    host,
    Array.from({ length: 5 }, (_, i) => ({ line: `checkout ${word} ${MARKER} ${i}`, app, level: 'error', meta: { secret: MARKER, [MARKER]: i } })),
  );
  await ingest(A.ingestionKey, 'host-a', [{ line: A_LINE, app: 'app-a' }, { line: `${A_LINE} again`, app: 'app-a' }]);

  const bLines = jsonLines((await asB('GET', `/v1/export?${WINDOW}`)).text);
  assert.equal(bLines.length, 5);
  const page = await asB('GET', `/v2/export?${WINDOW}&size=1`);
  assert.ok(page.json.pagination_id, 'B has a second page');

  assert.equal((await asB('GET', `/v1/export?${WINDOW}&email=${MARKER}@example.com&emailSubject=b-export`)).status, 200);
  const aExport = await call('GET', `/v1/export?${WINDOW}&email=reader@example.com&emailSubject=a-export`, { servicekey: A.serviceKey });
  assert.equal(aExport.status, 200);
  const bMail = await eventually(() => smtp.messages.find((mail) => mail.subject === 'b-export'), 10_000, "B's export mail");
  const aMail = await eventually(() => smtp.messages.find((mail) => mail.subject === 'a-export'), 10_000, "A's export mail");
  const bLink = linkIn(bMail);
  aLink = linkIn(aMail);
  assert.match(mailTexts(bMail), new RegExp(MARKER), "B's own export mail carries B's lines");

  b = {
    account: B.account,
    host,
    app,
    word,
    viewid: view.json.viewid,
    presetid: preset.json.presetid,
    categoryId: category.json.id,
    categoryName,
    keyId: key.json.id,
    serviceKeyId,
    lineId: bLines[2]._id,
    lineTs: String(bLines[2]._ts),
    cursor: page.json.pagination_id,
    downloadId: bLink.pathname.split('/').pop()!,
    downloadExpires: bLink.searchParams.get('expires')!,
    memberEmail: member.json.email,
    groupId: group.json.id,
    groupName,
    exclusionId: exclusion.json.id,
    parserId: parser.json.id,
    restoreId: restore.json.id,
    boardId: board.json.boardId,
    graphId: board.json.graphs[0].graphId,
    boardCategoryName,
  };
  const ghostCursor = Buffer.from(JSON.parse(Buffer.from(b.cursor, 'base64url').toString()).p.replace(/./g, 'x'));
  ghost = {
    account: hex().slice(0, 10),
    host: `bhost${hex()}`,
    app: `bapp${hex()}`,
    word: `bword${hex()}`,
    viewid: hex().slice(0, 10),
    presetid: hex().slice(0, 10),
    categoryId: hex().slice(0, 10),
    categoryName: `bcat${hex()}`,
    keyId: hex().slice(0, 10),
    serviceKeyId: hex().slice(0, 10),
    lineId: String(Number(b.lineId) + 1_000_000),
    lineTs: String(Number(b.lineTs) - 7),
    cursor: Buffer.from(JSON.stringify({ p: ghostCursor.toString(), t: Number(b.lineTs) - 7, i: '12345' })).toString('base64url'),
    downloadId: randomUUID(),
    downloadExpires: String(Number(b.downloadExpires) + 1000),
    memberEmail: `ghost${hex()}@example.com`,
    groupId: hex().slice(0, 10),
    groupName: `bgroup${hex()}`,
    exclusionId: hex().slice(0, 10),
    parserId: randomUUID(),
    restoreId: randomUUID(),
    boardId: hex().slice(0, 10),
    graphId: hex().slice(0, 10),
    boardCategoryName: `bboards${hex()}`,
  };

  // B's alert fired on its lines: B has deliveries to its marked address.
  await eventually(async () => ((await asB('GET', '/v1/alerts/deliveries')).text.includes(MARKER) ? true : undefined), 10_000, "B's deliveries");

  const signIn = await fetch(`${server.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ serviceKey: A.serviceKey }) });
  assert.equal(signIn.status, 200);
  session = { cookie: signIn.headers.get('set-cookie')!.split(';')[0], csrf: ((await signIn.json()) as { csrfToken: string }).csrfToken };
});
after(async () => {
  await server?.close();
  await smtp?.close();
  await s3Gate?.close();
  await s3?.close();
});

/** Everything of B's that must never reach A. */
function forbidden(): string[] {
  return [MARKER, B.serviceKey, B.ingestionKey, B.account, b.host, b.app, b.word, b.viewid, b.presetid, b.categoryId, b.categoryName, b.keyId, b.serviceKeyId, b.downloadId, b.memberEmail, b.groupId, b.groupName, b.exclusionId, b.boardId, b.graphId, b.boardCategoryName];
}

/** Replaces the target's values that the request itself carried, so that an echo of them is not a leak. */
function scrub(text: string, target: Target, sent: string): string {
  let out = text;
  const values = Object.entries(target).sort(([, x], [, y]) => y.length - x.length);
  for (const [name, value] of values) if (sent.includes(value)) out = out.split(value).join(`<${name}>`);
  return out;
}

function assertNothingOfB(got: Got, sent: string, where: string) {
  const seen = scrub(got.text, b, sent);
  for (const value of forbidden()) assert.ok(!seen.includes(value), `${where}: the answer carries B's "${value}": ${got.text.slice(0, 500)}`);
}

// ---------------------------------------------------------------------------------------------
// The matrix. One row per kind of call; `route` is the route as the server registers it.

type AuthKind = 'service' | 'ingest' | 'public';
interface Probe {
  route: string;
  does: string;
  auth: AuthKind;
  /** `ndjson`: a body sent as it is (the Elasticsearch bulk API's), instead of `body` as JSON. */
  request: (t: Target) => { path: string; body?: unknown; ndjson?: string; headers?: Record<string, string> };
  /** Statuses allowed when the credential is A's and valid. */
  allowed: number[];
  /** Extra check on an answer with a valid credential of A. */
  check?: (got: Got) => void;
  /** The answer may differ between B's ids and ghost ids (it creates something, with a fresh id). */
  createsOwn?: true;
  /** B, with its own service key, sees its marker here: proves the row can see a leak. */
  bSees?: true;
  /** Registered only when the viewer is built. */
  optional?: true;
  /** Removes what a valid call created, so that A's later listings hold nothing named like B's. */
  undo?: (got: Got) => Promise<unknown>;
}

const refused = [401, 403, 404];
const emptyJsonLines = (got: Got) => assert.equal(got.text, '', 'no lines');
const histogramTotal = (got: Got) => assert.equal(got.json.buckets.reduce((sum: number, bucket: { count: number }) => sum + bucket.count, 0), 0);
const hasALines = (got: Got) => assert.ok(got.text.includes(A_LINE), "A's own lines are there: the route was really scoped, not broken");

const PROBES: Probe[] = [
  // Sign-in and session.
  { route: 'POST /api/session', does: "signs in with B's ingestion key", auth: 'public', request: () => ({ path: '/api/session', body: { serviceKey: B.ingestionKey } }), allowed: [401] },
  {
    route: 'POST /api/session',
    does: "signs in with A's key naming B's account",
    auth: 'public',
    request: (t) => ({ path: '/api/session', body: { serviceKey: A.serviceKey, account: t.account } }),
    allowed: [200, 400],
    check: (got) => got.status === 200 && assert.equal(got.json.account, A.account),
    createsOwn: true,
  },
  { route: 'GET /api/session', does: "reads the session, naming B's account", auth: 'service', request: (t) => ({ path: `/api/session?account=${t.account}` }), allowed: [200, 401], check: (got) => got.status === 200 && assert.equal(got.json.account, A.account) },
  // A person's sign-in and one-time links: nothing tells A whether an address is B's member.
  { route: 'GET /api/sign-in', does: "asks how to sign in, naming B's account", auth: 'public', request: (t) => ({ path: `/api/sign-in?account=${t.account}` }), allowed: [200] },
  { route: 'POST /api/session', does: "signs in as B's member with a wrong password", auth: 'public', request: (t) => ({ path: '/api/session', body: { email: t.memberEmail, password: 'not the password at all' } }), allowed: [401] },
  {
    route: 'POST /api/session',
    does: "signs in as A's admin, with the right password, into B's account",
    auth: 'public',
    request: (t) => ({ path: '/api/session', body: { email: adminA.email, password: adminA.password, account: t.account } }),
    allowed: [401],
  },
  { route: 'GET /password', does: "opens the password page with a made-up link naming B's member", auth: 'public', request: (t) => ({ path: `/password?token=${'x'.repeat(43)}&email=${t.memberEmail}&account=${t.account}` }), allowed: [404] },
  { route: 'GET /api/password', does: "asks what a made-up link is for, naming B's member", auth: 'public', request: (t) => ({ path: `/api/password?token=${'x'.repeat(43)}&email=${t.memberEmail}` }), allowed: [404] },
  {
    route: 'POST /api/password',
    does: "sets B's member's password with a made-up link",
    auth: 'public',
    request: (t) => ({ path: '/api/password', body: { token: 'x'.repeat(43), password: `${INTRUDER} password`, email: t.memberEmail } }),
    allowed: [404],
  },
  // The same answer whether or not the address is a member anywhere.
  { route: 'POST /api/password/reset', does: "asks for a reset of B's member's password", auth: 'public', request: (t) => ({ path: '/api/password/reset', body: { email: t.memberEmail } }), allowed: [200] },
  { route: 'GET /api/sso/start', does: "starts single sign-on naming B's account", auth: 'public', request: (t) => ({ path: `/api/sso/start?account=${t.account}` }), allowed: [302, 303, 400, 404, 503], optional: true },
  {
    route: 'GET /api/sso/callback',
    does: "returns from single sign-on with a made-up state naming B's account",
    auth: 'public',
    request: (t) => ({ path: `/api/sso/callback?state=${'x'.repeat(43)}&code=${INTRUDER}&account=${t.account}&email=${t.memberEmail}` }),
    allowed: [302, 303, 400, 401, 403, 404],
    check: (got) => assert.ok(!got.text.includes('csrfToken'), 'no session'),
    optional: true,
  },
  { route: 'GET /healthz', does: 'health', auth: 'public', request: () => ({ path: '/healthz' }), allowed: [200] },
  // Open by default, like Loki's and VictoriaLogs': counts only, no label from client input.
  { route: 'GET /metrics', does: 'metrics', auth: 'public', request: () => ({ path: '/metrics' }), allowed: [200] },

  // Ingestion: whatever A says, its lines land in A.
  ...['/logs/ingest', '/logs/ingest/', '/logs/agent', '/logs/agent/'].map(
    (route): Probe => ({
      route: `POST ${route}`,
      // Only fields that are not stored name B: A's own data must not differ between B and the ghost.
      does: "writes naming B's account in the query, the body and the line",
      auth: 'ingest',
      request: (t) => ({ path: `${route}?hostname=host-a&account=${t.account}`, body: { account: t.account, lines: [{ line: `${INTRUDER} line`, app: 'app-a', account: t.account }] } }),
      allowed: [200],
      createsOwn: true,
    }),
  ),

  // The Elasticsearch bulk API: B is named only where nothing is stored (the query, the action's
  // routing), so A's own lines hold nothing of B's; the index goes to the line's meta, so it is A's.
  ...['/_bulk', '/:index/_bulk'].map(
    (route): Probe => ({
      route: `POST ${route}`,
      does: "writes naming B's account in the query and the action",
      auth: 'ingest',
      request: (t) => ({
        path: `${route.replace(':index', 'index-a')}?account=${t.account}`,
        ndjson: `${JSON.stringify({ index: { _index: 'index-a', routing: t.account } })}\n${JSON.stringify({ message: `${INTRUDER} line`, host: 'host-a', app: 'app-a' })}\n`,
      }),
      allowed: [200],
      check: (got) => assert.equal(got.json.errors, false),
      createsOwn: true,
    }),
  ),
  // What Elasticsearch shippers ask before the bulk API: nothing is kept, whatever it names.
  { route: 'GET /_license', does: "reads the license naming B's account", auth: 'public', request: (t) => ({ path: `/_license?account=${t.account}` }), allowed: [200] },
  { route: 'GET /_xpack', does: "reads the features naming B's account", auth: 'public', request: (t) => ({ path: `/_xpack?account=${t.account}` }), allowed: [200] },
  { route: 'GET /_cluster/health', does: "reads the health naming B's account", auth: 'ingest', request: (t) => ({ path: `/_cluster/health?account=${t.account}` }), allowed: [200] },
  { route: 'GET /_nodes', does: "reads the nodes naming B's account", auth: 'ingest', request: (t) => ({ path: `/_nodes?account=${t.account}` }), allowed: [200] },
  { route: 'GET /_nodes/:filter', does: "reads the nodes filtered by B's account", auth: 'ingest', request: (t) => ({ path: `/_nodes/${t.account}` }), allowed: [200] },
  { route: 'GET /_nodes/:filter/:metric', does: "reads the nodes filtered by B's account", auth: 'ingest', request: (t) => ({ path: `/_nodes/${t.account}/http` }), allowed: [200] },
  ...['/_index_template/:name', '/_template/:name', '/_component_template/:name', '/_ilm/policy/:name', '/_ingest/pipeline/:name'].flatMap((route): Probe[] => [
    { route: `GET ${route}`, does: "reads a setup resource named for B's account", auth: 'ingest', request: (t) => ({ path: route.replace(':name', t.account) }), allowed: [404] },
    { route: `PUT ${route}`, does: "puts a setup resource named for B's account", auth: 'ingest', request: (t) => ({ path: route.replace(':name', t.account), body: { index_patterns: [`${t.account}-*`] } }), allowed: [200] },
  ]),
  { route: 'PUT /:index', does: "creates an index named for B's account", auth: 'ingest', request: (t) => ({ path: `/${t.account}`, body: {} }), allowed: [200] },
  // Loki push: whatever A names, its lines land in A; an X-Scope-OrgID naming another organisation is refused.
  {
    route: 'POST /loki/api/v1/push',
    // Only the query names B: labels are stored as meta, and A's own data must not differ between B and the ghost.
    does: "pushes naming B's account in the query",
    auth: 'ingest',
    request: (t) => ({ path: `/loki/api/v1/push?account=${t.account}`, body: { streams: [{ stream: { app: 'app-a' }, values: [[`${Date.now()}000000`, `${INTRUDER} loki line`]] }] } }),
    allowed: [204],
    createsOwn: true,
  },
  {
    route: 'POST /loki/api/v1/push',
    does: "pushes with an X-Scope-OrgID naming B's account",
    auth: 'ingest',
    request: (t) => ({ path: '/loki/api/v1/push', headers: { 'x-scope-orgid': t.account }, body: { streams: [{ stream: { app: 'app-a' }, values: [[`${Date.now()}000000`, `${INTRUDER} loki line`]] }] } }),
    allowed: [401],
  },
  {
    route: 'POST /v1/logs',
    // As for /logs/ingest, B is named only where nothing is stored (the query), and in the line's words.
    does: "writes OTLP/JSON naming B's account in the query",
    auth: 'ingest',
    request: (t) => ({
      path: `/v1/logs?account=${t.account}`,
      body: {
        resourceLogs: [
          {
            resource: { attributes: [{ key: 'host.name', value: { stringValue: 'host-a' } }, { key: 'service.name', value: { stringValue: 'app-a' } }] },
            scopeLogs: [{ logRecords: [{ body: { stringValue: `${INTRUDER} line` } }] }],
          },
        ],
      },
    }),
    allowed: [200],
    createsOwn: true,
  },

  // Export, v1 and v2, and the e-mailed links.
  { route: 'GET /v1/export', does: "filters on B's host", auth: 'service', request: (t) => ({ path: `/v1/export?${WINDOW}&hosts=${t.host}` }), allowed: [200], check: emptyJsonLines },
  { route: 'GET /v1/export', does: "searches for B's word", auth: 'service', request: (t) => ({ path: `/v1/export?${WINDOW}&query=${t.word}` }), allowed: [200], check: emptyJsonLines },
  { route: 'GET /v1/export', does: "searches the archive naming B's account (A does not archive)", auth: 'service', request: (t) => ({ path: `/v1/export?${WINDOW}&source=archive&account=${t.account}` }), allowed: [404] },
  { route: 'GET /v2/export', does: "searches the archive naming B's account (A does not archive)", auth: 'service', request: (t) => ({ path: `/v2/export?${WINDOW}&source=archive&account=${t.account}` }), allowed: [404] },
  { route: 'GET /v1/export', does: "names B's account", auth: 'service', request: (t) => ({ path: `/v1/export?${WINDOW}&account=${t.account}` }), allowed: [200], check: hasALines, bSees: true },
  {
    route: 'GET /v1/export',
    does: "e-mails an export of B's host",
    auth: 'service',
    request: (t) => ({ path: `/v1/export?${WINDOW}&hosts=${t.host}&account=${t.account}&email=reader@example.com&emailSubject=a-probe` }),
    allowed: [200],
    createsOwn: true,
  },
  {
    route: 'GET /v1/export/download/:id',
    does: "downloads B's export with A's signature",
    auth: 'public',
    request: (t) => ({ path: `/v1/export/download/${t.downloadId}?expires=${aLink.searchParams.get('expires')}&signature=${aLink.searchParams.get('signature')}` }),
    allowed: [403],
  },
  { route: 'GET /v1/export/download/:id', does: "downloads B's export unsigned", auth: 'public', request: (t) => ({ path: `/v1/export/download/${t.downloadId}?expires=${t.downloadExpires}` }), allowed: [403] },
  { route: 'GET /v1/export/download/:id', does: "downloads B's export by a path", auth: 'public', request: (t) => ({ path: `/v1/export/download/..%2F..%2Fexports%2F${t.downloadId}.jsonl.gz?expires=${t.downloadExpires}&signature=x` }), allowed: [403, 404] },
  // A cursor of B's is "another request's": the documented 400.
  { route: 'GET /v2/export', does: "pages on with B's pagination_id", auth: 'service', request: (t) => ({ path: `/v2/export?${WINDOW}&size=1&pagination_id=${t.cursor}` }), allowed: [400] },
  { route: 'GET /v2/export', does: "filters on B's host", auth: 'service', request: (t) => ({ path: `/v2/export?${WINDOW}&hosts=${t.host}` }), allowed: [200], check: (got) => assert.deepEqual(got.json, { lines: [], pagination_id: null }) },
  { route: 'GET /v2/export', does: "names B's account", auth: 'service', request: (t) => ({ path: `/v2/export?${WINDOW}&account=${t.account}` }), allowed: [200], check: hasALines, bSees: true },

  // The viewer's read APIs.
  { route: 'GET /v1/histogram', does: "counts B's host", auth: 'service', request: (t) => ({ path: `/v1/histogram?${WINDOW}&hosts=${t.host}` }), allowed: [200], check: histogramTotal },
  { route: 'GET /v1/histogram', does: "counts B's word", auth: 'service', request: (t) => ({ path: `/v1/histogram?${WINDOW}&query=${t.word}&account=${t.account}` }), allowed: [200], check: histogramTotal },
  { route: 'GET /v1/viewer/facets', does: "lists facets naming B's account", auth: 'service', request: (t) => ({ path: `/v1/viewer/facets?${WINDOW}&account=${t.account}` }), allowed: [200], bSees: true },
  { route: 'GET /v1/viewer/facets', does: "lists facets of B's app", auth: 'service', request: (t) => ({ path: `/v1/viewer/facets?${WINDOW}&apps=${t.app}` }), allowed: [200] },
  // Boards and their graphs' data.
  { route: 'GET /v1/config/board', does: 'lists boards naming B\'s account', auth: 'service', request: (t) => ({ path: `/v1/config/board?account=${t.account}` }), allowed: [200], bSees: true },
  { route: 'GET /v1/config/board/:boardId', does: "reads B's board", auth: 'service', request: (t) => ({ path: `/v1/config/board/${t.boardId}` }), allowed: refused, bSees: true },
  { route: 'POST /v1/config/board', does: "files a board under B's category", auth: 'service', request: (t) => ({ path: '/v1/config/board', body: { name: INTRUDER, category: t.boardCategoryName } }), allowed: [400] },
  { route: 'PUT /v1/config/board/:boardId', does: "replaces B's board", auth: 'service', request: (t) => ({ path: `/v1/config/board/${t.boardId}`, body: { name: INTRUDER } }), allowed: refused },
  { route: 'DELETE /v1/config/board/:boardId', does: "deletes B's board", auth: 'service', request: (t) => ({ path: `/v1/config/board/${t.boardId}` }), allowed: refused },
  {
    route: 'GET /v1/board/:boardId/graph/:graphId/data',
    does: "reads the data of B's graph",
    auth: 'service',
    request: (t) => ({ path: `/v1/board/${t.boardId}/graph/${t.graphId}/data?${WINDOW}` }),
    allowed: refused,
    bSees: true,
  },
  {
    route: 'POST /v1/viewer/chart',
    does: "charts lines by app, naming B's account",
    auth: 'service',
    request: (t) => ({ path: '/v1/viewer/chart', body: { account: t.account, measure: { type: 'count' }, breakdown: { field: 'app', limit: 20 }, from: nowS - 3600, to: nowS + 3600 } }),
    allowed: [200],
    check: (got) => {
      const names = got.json.series.map((series: { name: string }) => series.name);
      assert.ok(names.includes('app-a') && names.every((name: string) => name === 'app-a' || name === 'other'), `A's own app only: ${names}`);
    },
    bSees: true,
  },
  {
    route: 'POST /v1/viewer/chart',
    does: "charts B's word on B's host and app",
    auth: 'service',
    request: (t) => ({ path: '/v1/viewer/chart', body: { query: t.word, hosts: [t.host], apps: [t.app], measure: { type: 'unique', field: 'meta.secret' }, from: nowS - 3600, to: nowS + 3600 } }),
    allowed: [200],
    check: (got) => assert.ok(got.json.series[0].points.every(([, value]: [number, number | null]) => value === null), 'no line, so no value'),
  },
  { route: 'GET /v1/viewer/patterns', does: "groups lines naming B's account", auth: 'service', request: (t) => ({ path: `/v1/viewer/patterns?${WINDOW}&account=${t.account}` }), allowed: [200], bSees: true },
  { route: 'GET /v1/viewer/patterns', does: "groups B's host and word", auth: 'service', request: (t) => ({ path: `/v1/viewer/patterns?${WINDOW}&hosts=${t.host}&query=${t.word}` }), allowed: [200], check: (got) => assert.deepEqual([got.json.lines, got.json.patterns], [0, []]) },
  // B's lines carry meta whose key and value are the marker, and fields B's parsing rule extracts.
  { route: 'GET /v1/viewer/fields', does: "lists fields naming B's account", auth: 'service', request: (t) => ({ path: `/v1/viewer/fields?${WINDOW}&account=${t.account}&top=100` }), allowed: [200], bSees: true },
  {
    route: 'GET /v1/viewer/fields',
    does: "lists the fields of B's host and word",
    auth: 'service',
    request: (t) => ({ path: `/v1/viewer/fields?${WINDOW}&hosts=${t.host}&query=${t.word}` }),
    allowed: [200],
    check: (got) => assert.deepEqual(got.json, { lines: 0, fields: [] }),
  },
  { route: 'GET /v1/viewer/context', does: "reads around B's line", auth: 'service', request: (t) => ({ path: `/v1/viewer/context?id=${t.lineId}&ts=${t.lineTs}` }), allowed: [404], bSees: true },
  { route: 'GET /v1/viewer/context', does: "reads B's host around B's line", auth: 'service', request: (t) => ({ path: `/v1/viewer/context?id=${t.lineId}&ts=${t.lineTs}&by=host&anchor=after` }), allowed: [404] },
  { route: 'GET /v1/usage', does: "counts usage naming B's account", auth: 'service', request: (t) => ({ path: `/v1/usage?${WINDOW}&account=${t.account}` }), allowed: [200], bSees: true },
  { route: 'GET /v1/alerts/deliveries', does: "lists the deliveries of B's view", auth: 'service', request: (t) => ({ path: `/v1/alerts/deliveries?viewid=${t.viewid}` }), allowed: [200], check: (got) => assert.deepEqual(got.json, []) },
  {
    route: 'POST /v1/alerts/test-channel',
    does: "sends a test notification naming B's view",
    auth: 'service',
    request: (t) => ({ path: '/v1/alerts/test-channel', body: { viewid: t.viewid, channel: { integration: 'email', emails: [`${INTRUDER}@example.com`], triggerlimit: 1, immediate: true } } }),
    allowed: [404],
  },
  {
    route: 'POST /v1/alerts/backtest',
    does: "backtests an alert on B's host and word",
    auth: 'service',
    request: (t) => ({ path: '/v1/alerts/backtest', body: { query: t.word, hosts: [t.host], account: t.account, channel: { operator: 'presence', triggerlimit: 1, triggerinterval: '1h', immediate: true }, days: 7 } }),
    allowed: [200],
    check: (got) => assert.deepEqual(got.json.firings, []),
  },
  { route: 'GET /v1/alerts/deliveries', does: "lists deliveries naming B's account", auth: 'service', request: (t) => ({ path: `/v1/alerts/deliveries?limit=1000&account=${t.account}` }), allowed: [200], bSees: true },

  // The audit trail, read before any row below writes A's own records naming B's values.
  { route: 'GET /v1/config/audit', does: "reads the audit trail naming B's account", auth: 'service', request: (t) => ({ path: `/v1/config/audit?account=${t.account}&limit=500` }), allowed: [200], bSees: true },
  {
    route: 'GET /v1/config/audit',
    does: "reads the audit trail of B's member",
    auth: 'service',
    request: (t) => ({ path: `/v1/config/audit?actor=${t.memberEmail}&account=${t.account}` }),
    allowed: [200],
    check: (got) => assert.deepEqual(got.json, { records: [], next: null }),
  },
  { route: 'GET /v1/config/audit', does: "reads the audit trail of B's groups", auth: 'service', request: (t) => ({ path: `/v1/config/audit?resource=group&account=${t.account}` }), allowed: [200], check: (got) => assert.deepEqual(got.json, { records: [], next: null }) },

  // Members.
  {
    route: 'GET /v1/config/members',
    does: "lists members naming B's account",
    auth: 'service',
    request: (t) => ({ path: `/v1/config/members?account=${t.account}` }),
    allowed: [200],
    check: (got) => assert.ok(got.json.some((member: { email: string }) => member.email === adminA.email), "A's own members are listed"),
    bSees: true,
  },
  { route: 'GET /v1/config/members/:email', does: "reads B's member", auth: 'service', request: (t) => ({ path: `/v1/config/members/${t.memberEmail}` }), allowed: refused, bSees: true },
  { route: 'PUT /v1/config/members/:email', does: "changes B's member's role", auth: 'service', request: (t) => ({ path: `/v1/config/members/${t.memberEmail}`, body: { role: 'readonly' } }), allowed: refused },
  { route: 'PUT /v1/config/members/:email', does: "puts B's member in no group", auth: 'service', request: (t) => ({ path: `/v1/config/members/${t.memberEmail}`, body: { groups: [] } }), allowed: refused },
  { route: 'DELETE /v1/config/members/:email', does: "removes B's member", auth: 'service', request: (t) => ({ path: `/v1/config/members/${t.memberEmail}` }), allowed: refused },
  { route: 'POST /v1/config/members', does: "invites a member into B's group", auth: 'service', request: (t) => ({ path: '/v1/config/members', body: { email: `${INTRUDER}@example.com`, role: 'readonly', groups: [t.groupId] } }), allowed: [400] },
  // Addresses are per organisation: B's member's address is free in A (a 409 would tell A it is B's).
  {
    route: 'POST /v1/config/members',
    does: "invites B's member's address",
    auth: 'service',
    request: (t) => ({ path: '/v1/config/members', body: { email: t.memberEmail, role: 'readonly' } }),
    allowed: [200],
    createsOwn: true,
    check: (got) => assert.equal(got.json.role, 'readonly'),
    undo: (got) => call('DELETE', `/v1/config/members/${got.json.email}`, { servicekey: A.serviceKey }),
  },

  // Groups.
  { route: 'GET /v1/config/groups', does: "lists groups naming B's account", auth: 'service', request: (t) => ({ path: `/v1/config/groups?account=${t.account}` }), allowed: [200], bSees: true },
  { route: 'GET /v1/config/groups/:groupId', does: "reads B's group", auth: 'service', request: (t) => ({ path: `/v1/config/groups/${t.groupId}` }), allowed: refused, bSees: true },
  { route: 'PATCH /v1/config/groups/:groupId', does: "widens B's group's scope", auth: 'service', request: (t) => ({ path: `/v1/config/groups/${t.groupId}`, body: { name: INTRUDER, access_scopes: '' } }), allowed: refused },
  {
    route: 'PUT /v1/config/groups/:groupId',
    does: "replaces B's group, its scope emptied, widening asked for",
    auth: 'service',
    request: (t) => ({ path: `/v1/config/groups/${t.groupId}?widen=true`, body: { name: INTRUDER, access_scopes: '', apps: [], hosts: [] } }),
    allowed: refused,
  },
  { route: 'DELETE /v1/config/groups/:groupId', does: "deletes B's group", auth: 'service', request: (t) => ({ path: `/v1/config/groups/${t.groupId}` }), allowed: refused },
  {
    route: 'POST /v1/config/groups',
    does: "creates a group with B's group's name, scoped to B's host",
    auth: 'service',
    request: (t) => ({ path: '/v1/config/groups', body: { name: t.groupName, access_scopes: `host:${t.host}` } }),
    allowed: [200],
    createsOwn: true,
    // What it admits is read from A's lines only: none of them is on B's host.
    check: (got) => assert.deepEqual([got.json.members, got.json.admits], [[], { apps: [], hosts: [] }]),
    undo: (got) => call('DELETE', `/v1/config/groups/${got.json.id}`, { servicekey: A.serviceKey }),
  },

  // Retention.
  {
    route: 'GET /v1/config/retention',
    does: "reads the retention naming B's account",
    auth: 'service',
    request: (t) => ({ path: `/v1/config/retention?account=${t.account}` }),
    allowed: [200],
    check: (got) => assert.equal(got.json.retentionIsDefault, true, "A's own retention, not B's"),
  },
  { route: 'PUT /v1/config/retention', does: "sets the retention naming B's account", auth: 'service', request: (t) => ({ path: `/v1/config/retention?account=${t.account}`, body: { days: 2, account: t.account } }), allowed: [200, 400] },

  // Ingestion controls: exclusion rules, suspension, and the lines rules excluded.
  { route: 'GET /v1/config/ingestion/exclusions', does: "lists exclusion rules naming B's account", auth: 'service', request: (t) => ({ path: `/v1/config/ingestion/exclusions?account=${t.account}` }), allowed: [200], bSees: true },
  { route: 'GET /v1/config/ingestion/exclusions/:id', does: "reads B's exclusion rule", auth: 'service', request: (t) => ({ path: `/v1/config/ingestion/exclusions/${t.exclusionId}` }), allowed: [404] },
  {
    route: 'PATCH /v1/config/ingestion/exclusions/:id',
    does: "turns on and rewrites B's exclusion rule",
    auth: 'service',
    request: (t) => ({ path: `/v1/config/ingestion/exclusions/${t.exclusionId}`, body: { active: true, query: INTRUDER, title: INTRUDER } }),
    allowed: [404],
  },
  { route: 'DELETE /v1/config/ingestion/exclusions/:id', does: "deletes B's exclusion rule", auth: 'service', request: (t) => ({ path: `/v1/config/ingestion/exclusions/${t.exclusionId}` }), allowed: [404] },
  {
    route: 'POST /v1/config/ingestion/exclusions',
    does: "creates an exclusion rule naming B's account and apps",
    auth: 'service',
    request: (t) => ({ path: `/v1/config/ingestion/exclusions?account=${t.account}`, body: { account: t.account, title: INTRUDER, apps: [t.app], query: INTRUDER } }),
    allowed: [200],
    createsOwn: true,
    undo: (got) => call('DELETE', `/v1/config/ingestion/exclusions/${got.json.id}`, { servicekey: A.serviceKey }),
  },
  { route: 'GET /v1/config/ingestion/status', does: "reads the ingestion status naming B's account", auth: 'service', request: (t) => ({ path: `/v1/config/ingestion/status?account=${t.account}` }), allowed: [200] },
  { route: 'POST /v1/config/ingestion/suspend', does: "asks to suspend naming B's account", auth: 'service', request: (t) => ({ path: `/v1/config/ingestion/suspend?account=${t.account}`, body: { account: t.account } }), allowed: [200], createsOwn: true },
  {
    route: 'POST /v1/config/ingestion/suspend/confirm',
    does: "confirms a suspension of B's account with a made-up token",
    auth: 'service',
    request: (t) => ({ path: `/v1/config/ingestion/suspend/confirm?account=${t.account}`, body: { account: t.account, token: t.exclusionId } }),
    allowed: [400],
  },
  { route: 'POST /v1/config/ingestion/resume', does: "resumes naming B's account", auth: 'service', request: (t) => ({ path: `/v1/config/ingestion/resume?account=${t.account}`, body: { account: t.account } }), allowed: [200] },
  {
    route: 'GET /v1/config/index-rate',
    does: "reads the index-rate alert naming B's account",
    auth: 'service',
    request: (t) => ({ path: `/v1/config/index-rate?account=${t.account}` }),
    allowed: [200],
    check: (got) => assert.equal(got.json.enabled, false, "A's own (unset) alert, not B's"),
    bSees: true,
  },
  {
    route: 'PUT /v1/config/index-rate',
    does: "sets the index-rate alert naming B's account",
    auth: 'service',
    request: (t) => ({ path: `/v1/config/index-rate?account=${t.account}`, body: { account: t.account, max_lines: 5, threshold_alert: 'both', frequency: 'hourly', enabled: false } }),
    allowed: [400],
  },
  // Mezmo's usage paths: A's own volume only; B's names count nothing.
  ...(['apps', 'hosts', 'tags'] as const).flatMap((kind): Probe[] => {
    const name = (t: Target) => (kind === 'hosts' ? t.host : t.app);
    return ['v1', 'v2'].flatMap((version): Probe[] => [
      { route: `GET /${version}/usage/${kind}`, does: `lists ${kind} naming B's account`, auth: 'service', request: (t) => ({ path: `/${version}/usage/${kind}?${WINDOW}&account=${t.account}` }), allowed: [200], bSees: kind !== 'tags' || undefined },
      {
        route: `GET /${version}/usage/${kind}/:name`,
        does: `reads the usage of B's ${kind.slice(0, -1)}`,
        auth: 'service',
        request: (t) => ({ path: `/${version}/usage/${kind}/${name(t)}?${WINDOW}` }),
        allowed: [200],
        check: (got) => (version === 'v1' ? assert.equal(got.text, 'null') : assert.deepEqual(got.json.results, [])),
      },
    ]);
  }),
  { route: 'GET /v2/usage', does: "reads the usage in bytes naming B's account", auth: 'service', request: (t) => ({ path: `/v2/usage?${WINDOW}&account=${t.account}` }), allowed: [200] },
  { route: 'GET /v1/usage/excluded', does: "counts excluded lines naming B's account", auth: 'service', request: (t) => ({ path: `/v1/usage/excluded?${WINDOW}&account=${t.account}` }), allowed: [200], bSees: true },
  // Archiving: B has a configuration (its bucket is named with the marker); A has none.
  { route: 'GET /v1/config/archiving', does: "reads the archiving naming B's account", auth: 'service', request: (t) => ({ path: `/v1/config/archiving?account=${t.account}` }), allowed: [404] },
  {
    route: 'POST /v1/config/archiving',
    does: "configures archiving naming B's account, with a store that refuses",
    auth: 'service',
    request: (t) => ({ path: `/v1/config/archiving?account=${t.account}`, body: { account: t.account, integration: 'gcs', bucket: 'x' } }),
    allowed: [400],
  },
  {
    route: 'PUT /v1/config/archiving',
    does: "replaces the archiving naming B's account",
    auth: 'service',
    request: (t) => ({ path: `/v1/config/archiving?account=${t.account}`, body: { account: t.account, integration: 's3', bucket: 'intruder', accesskey: 'x', secretkey: 'y' } }),
    allowed: [404],
  },
  { route: 'DELETE /v1/config/archiving', does: "ends the archiving naming B's account", auth: 'service', request: (t) => ({ path: `/v1/config/archiving?account=${t.account}` }), allowed: [404] },
  {
    route: 'POST /v1/archive/restore',
    does: "restores the archive naming B's account (A does not archive)",
    auth: 'service',
    request: (t) => ({ path: `/v1/archive/restore?account=${t.account}`, body: { account: t.account, from: 0, to: nowS, query: t.word } }),
    allowed: [404],
  },
  { route: 'GET /v1/archive/restore/:id', does: "reads B's restore", auth: 'service', request: (t) => ({ path: `/v1/archive/restore/${t.restoreId}` }), allowed: [404] },
  { route: 'DELETE /v1/archive/restore/:id', does: "cancels B's restore", auth: 'service', request: (t) => ({ path: `/v1/archive/restore/${t.restoreId}` }), allowed: [404] },
  {
    route: 'GET /v1/archive/status',
    does: "reads the archive status naming B's account",
    auth: 'service',
    request: (t) => ({ path: `/v1/archive/status?account=${t.account}` }),
    allowed: [200],
    check: (got) => assert.deepEqual(got.json, { configured: false, pending: 0, failing: 0, files: [] }, "A's own status, not B's"),
  },

  // Views.
  { route: 'GET /v1/config/view', does: 'lists views', auth: 'service', request: (t) => ({ path: `/v1/config/view?account=${t.account}` }), allowed: [200], bSees: true },
  { route: 'GET /v1/config/view/:viewid', does: "reads B's view", auth: 'service', request: (t) => ({ path: `/v1/config/view/${t.viewid}` }), allowed: refused, bSees: true },
  { route: 'POST /v1/config/view', does: "attaches B's preset", auth: 'service', request: (t) => ({ path: '/v1/config/view', body: { name: INTRUDER, query: 'x', presetid: t.presetid } }), allowed: [400] },
  { route: 'POST /v1/config/view', does: "files under B's category", auth: 'service', request: (t) => ({ path: '/v1/config/view', body: { name: INTRUDER, query: 'x', category: [t.categoryName] } }), allowed: [400] },
  // A missing view is Mezmo's "Nothing to configure" 400 on PUT.
  { route: 'PUT /v1/config/view/:viewid', does: "replaces B's view", auth: 'service', request: (t) => ({ path: `/v1/config/view/${t.viewid}`, body: { name: INTRUDER, query: 'x' } }), allowed: [400, ...refused] },
  { route: 'DELETE /v1/config/view/:viewid', does: "deletes B's view", auth: 'service', request: (t) => ({ path: `/v1/config/view/${t.viewid}` }), allowed: refused },
  { route: 'POST /v1/config/view/:viewid/alerts/:alertid/takeover', does: "takes over a channel of B's view", auth: 'service', request: (t) => ({ path: `/v1/config/view/${t.viewid}/alerts/any/takeover`, body: {} }), allowed: refused },

  // Preset alerts.
  { route: 'GET /v1/config/presetalert', does: 'lists presets', auth: 'service', request: (t) => ({ path: `/v1/config/presetalert?account=${t.account}` }), allowed: [200], bSees: true },
  { route: 'GET /v1/config/presetalert/:presetid', does: "reads B's preset", auth: 'service', request: (t) => ({ path: `/v1/config/presetalert/${t.presetid}` }), allowed: refused, bSees: true },
  { route: 'POST /v1/config/presetalert', does: "creates a preset naming B's account", auth: 'service', request: (t) => ({ path: '/v1/config/presetalert', body: { name: INTRUDER, account: t.account } }), allowed: [200, 400], createsOwn: true },
  { route: 'PUT /v1/config/presetalert/:presetid', does: "replaces B's preset", auth: 'service', request: (t) => ({ path: `/v1/config/presetalert/${t.presetid}`, body: { name: INTRUDER } }), allowed: refused },
  { route: 'DELETE /v1/config/presetalert/:presetid', does: "deletes B's preset", auth: 'service', request: (t) => ({ path: `/v1/config/presetalert/${t.presetid}` }), allowed: refused },
  { route: 'POST /v1/config/presetalert/:presetid/alerts/:alertid/takeover', does: "takes over a channel of B's preset", auth: 'service', request: (t) => ({ path: `/v1/config/presetalert/${t.presetid}/alerts/any/takeover`, body: {} }), allowed: refused },

  // Categories.
  // Parsing rules.
  { route: 'GET /v1/config/parsers', does: "lists parsing rules naming B's account", auth: 'service', request: (t) => ({ path: `/v1/config/parsers?account=${t.account}` }), allowed: [200], check: (got) => assert.deepEqual(got.json, []) },
  { route: 'GET /v1/config/parsers/:id', does: "reads B's parsing rule", auth: 'service', request: (t) => ({ path: `/v1/config/parsers/${t.parserId}` }), allowed: refused },
  {
    route: 'PUT /v1/config/parsers/:id',
    does: "rewrites B's parsing rule",
    auth: 'service',
    request: (t) => ({ path: `/v1/config/parsers/${t.parserId}`, body: { name: INTRUDER, pattern: '(?P<x>.)' } }),
    allowed: refused,
  },
  { route: 'DELETE /v1/config/parsers/:id', does: "deletes B's parsing rule", auth: 'service', request: (t) => ({ path: `/v1/config/parsers/${t.parserId}` }), allowed: refused },
  {
    route: 'POST /v1/config/parsers',
    does: "makes a parsing rule for B's app, naming B's account",
    auth: 'service',
    request: (t) => ({ path: `/v1/config/parsers?account=${t.account}`, body: { name: `${INTRUDER}${hex()}`, apps: [t.app], pattern: '^checkout (?P<x>\\w+)', account: t.account } }),
    allowed: [200],
    createsOwn: true,
    undo: (got) => call('DELETE', `/v1/config/parsers/${got.json.id}`, { servicekey: A.serviceKey }),
  },
  {
    route: 'POST /v1/config/parsers/test',
    does: "tries a pattern on the last lines of B's app",
    auth: 'service',
    request: (t) => ({ path: `/v1/config/parsers/test?account=${t.account}`, body: { apps: [t.app], hosts: [t.host], pattern: '(?P<x>.+)', account: t.account } }),
    allowed: [200],
    check: (got) => assert.deepEqual(got.json, { lines: [] }),
  },
  { route: 'GET /v1/config/categories/:type', does: 'lists categories', auth: 'service', request: (t) => ({ path: `/v1/config/categories/views?account=${t.account}` }), allowed: [200] },
  { route: 'GET /v1/config/categories/:type/:id', does: "reads B's category", auth: 'service', request: (t) => ({ path: `/v1/config/categories/views/${t.categoryId}` }), allowed: refused },
  // Names are per organisation: B's name is free for A (a 409 would tell A that B uses it).
  {
    route: 'POST /v1/config/categories/:type',
    does: "creates a category with B's category's name",
    auth: 'service',
    request: (t) => ({ path: '/v1/config/categories/views', body: { name: t.categoryName } }),
    allowed: [200],
    createsOwn: true,
    undo: (got) => call('DELETE', `/v1/config/categories/views/${got.json.id}`, { servicekey: A.serviceKey }),
  },
  { route: 'PUT /v1/config/categories/:type/:id', does: "renames B's category", auth: 'service', request: (t) => ({ path: `/v1/config/categories/views/${t.categoryId}`, body: { name: INTRUDER } }), allowed: refused },
  { route: 'DELETE /v1/config/categories/:type/:id', does: "deletes B's category", auth: 'service', request: (t) => ({ path: `/v1/config/categories/views/${t.categoryId}` }), allowed: refused },

  // Keys.
  { route: 'GET /v1/config/meta-fields', does: "lists meta fields naming B's account", auth: 'service', request: (t) => ({ path: `/v1/config/meta-fields?account=${t.account}` }), allowed: [200], bSees: true },
  { route: 'GET /v1/config/keys', does: 'lists keys', auth: 'service', request: (t) => ({ path: `/v1/config/keys?account=${t.account}` }), allowed: [200], bSees: true },
  { route: 'GET /v1/config/keys/:id', does: "reads B's key", auth: 'service', request: (t) => ({ path: `/v1/config/keys/${t.keyId}` }), allowed: refused, bSees: true },
  {
    route: 'POST /v1/config/keys',
    does: "creates a key naming B's account",
    auth: 'service',
    request: (t) => ({ path: `/v1/config/keys?type=ingestion&account=${t.account}`, body: { name: INTRUDER, account: t.account } }),
    allowed: [200, 400],
    createsOwn: true,
    check: (got) => got.status === 200 && assert.doesNotMatch(JSON.stringify(got.json), new RegExp(B.account)),
  },
  { route: 'PUT /v1/config/keys/:id', does: "renames B's key", auth: 'service', request: (t) => ({ path: `/v1/config/keys/${t.keyId}`, body: { name: INTRUDER } }), allowed: refused },
  { route: 'DELETE /v1/config/keys/:id', does: "revokes B's ingestion key", auth: 'service', request: (t) => ({ path: `/v1/config/keys/${t.keyId}` }), allowed: refused },
  { route: 'DELETE /v1/config/keys/:id', does: "revokes B's service key", auth: 'service', request: (t) => ({ path: `/v1/config/keys/${t.serviceKeyId}` }), allowed: refused },

  // The tail over plain HTTP (the WebSocket itself is the test below the matrix).
  { route: 'GET /ws/tail', does: "asks for B's tail without upgrading", auth: 'service', request: (t) => ({ path: `/ws/tail?account=${t.account}&hosts=${t.host}` }), allowed: [400, 404, 426] },
  // CORS preflight, answered for every path.
  {
    route: 'OPTIONS *',
    does: "preflights an export of B's host",
    auth: 'public',
    request: (t) => ({ path: `/v1/export?hosts=${t.host}`, headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' } }),
    allowed: [200, 204, 400, 404],
  },
  { route: 'GET /*', does: "opens the viewer at B's view", auth: 'public', request: (t) => ({ path: `/app/views/${t.viewid}?account=${t.account}` }), allowed: [200, 404], optional: true },

  // Last: signing out ends A's session, which every row above uses.
  { route: 'DELETE /api/session', does: 'signs out', auth: 'service', request: () => ({ path: '/api/session' }), allowed: [200] },
];

interface Credential {
  name: string;
  /** A member's role: a route above it must refuse with the role's 403, whatever it aims at. */
  role?: Role;
  headers: () => Record<string, string>;
  /** Whether the route accepts it as A: if not, only a refusal will do. */
  valid: boolean;
}

const CREDENTIALS: Record<AuthKind, Credential[]> = {
  service: [
    { name: "A's service key", headers: () => ({ servicekey: A.serviceKey }), valid: true },
    { name: "A's service key as Authorization: Token", headers: () => ({ authorization: `Token ${A.serviceKey}` }), valid: true },
    { name: "A's ingestion key", headers: () => ({ servicekey: A.ingestionKey }), valid: false },
    { name: "B's ingestion key", headers: () => ({ authorization: basic(B.ingestionKey) }), valid: false },
    { name: 'no credentials', headers: () => ({}), valid: false },
    { name: "A's admin member's session", role: 'admin', headers: () => adminA.headers(true), valid: true },
    { name: "A's readonly member's session", role: 'readonly', headers: () => readonlyA.headers(true), valid: true },
    // Last, for the sign-out row.
    { name: "A's viewer session", headers: () => ({ cookie: session.cookie, 'x-csrf-token': session.csrf }), valid: true },
  ],
  ingest: [
    { name: "A's ingestion key", headers: () => ({ apikey: A.ingestionKey }), valid: true },
    { name: "A's service key as an ingestion key", headers: () => ({ apikey: A.serviceKey }), valid: false },
    { name: "B's service key as an ingestion key", headers: () => ({ authorization: basic(B.serviceKey) }), valid: false },
    { name: "A's viewer session", headers: () => ({ cookie: session.cookie, 'x-csrf-token': session.csrf }), valid: false },
    { name: "A's admin member's session", headers: () => adminA.headers(true), valid: false },
  ],
  public: [{ name: "A's service key", headers: () => ({ servicekey: A.serviceKey }), valid: true }],
};

const methodOf = (probe: Probe) => (probe.route.startsWith('OPTIONS') ? 'OPTIONS' : probe.route.split(' ')[0]);

async function run(probe: Probe, credential: Credential, target: Target): Promise<{ got: Got; sent: string }> {
  const { path: urlPath, body, ndjson, headers = {} } = probe.request(target);
  const got = await call(methodOf(probe), urlPath, { ...credential.headers(), ...headers }, body, ndjson);
  return { got, sent: decodeURIComponent(urlPath) + JSON.stringify(body ?? null) + (ndjson ?? '') };
}

describe('live tail', () => {
  interface Tail {
    socket: WebSocket;
    raw: string[];
  }
  function openTail(query: string, headers: Record<string, string>): Promise<Tail> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`${server.url.replace('http', 'ws')}/ws/tail?${query}`, 'json', { headers });
      const tail: Tail = { socket, raw: [] };
      socket.on('message', (data) => tail.raw.push(data.toString()));
      socket.on('open', () => eventually(() => (tail.raw.length ? tail : undefined)).then(resolve, reject));
      socket.on('unexpected-response', (_request, response) => reject(Object.assign(new Error(`refused with ${response.statusCode}`), { status: response.statusCode })));
      socket.on('error', reject);
    });
  }

  test("A's tails, with any credential and filter, never carry B's lines; B's own tail does", async () => {
    const sentinelHost = `host-a-${hex()}`;
    const aTails = [
      await openTail('', { authorization: `Token ${A.serviceKey}` }),
      await openTail(`account=${b.account}`, { servicekey: A.serviceKey }),
      await openTail(`q=checkout&hosts=${b.host},${sentinelHost}&apps=${b.app},app-a`, { authorization: `Token ${A.serviceKey}` }),
      await openTail(`account=${b.account}`, { cookie: session.cookie }),
      await openTail(`account=${b.account}&hosts=${b.host},${sentinelHost}`, { cookie: adminA.cookie }),
      await openTail(`account=${b.account}`, { cookie: readonlyA.cookie }),
    ];
    const bTail = await openTail('', { authorization: `Token ${B.serviceKey}` });
    const refusedHeaders: Array<Record<string, string>> = [{ servicekey: A.ingestionKey }, { authorization: `Token ${B.ingestionKey}` }, {}];
    for (const headers of refusedHeaders) {
      await assert.rejects(openTail(`account=${b.account}`, headers), (error: { status?: number }) => error.status === 401);
    }

    await ingest(B.ingestionKey, b.host, [{ line: `checkout ${b.word} ${MARKER} tail`, app: b.app }]);
    // B's lines were published before A's sentinel: once a tail has the sentinel, it had its chance at B's.
    const sentinel = `checkout sentinel ${hex()}`;
    await ingest(A.ingestionKey, sentinelHost, [{ line: sentinel, app: 'app-a' }]);
    for (const tail of aTails) await eventually(() => (tail.raw.some((message) => message.includes(sentinel)) ? true : undefined), 5000, "A's sentinel line");
    await eventually(() => (bTail.raw.some((message) => message.includes(MARKER)) ? true : undefined), 5000, "B's line on B's tail");
    await new Promise((resolve) => setTimeout(resolve, 300)); // a short window for anything late
    for (const tail of aTails) {
      for (const message of tail.raw) for (const value of forbidden()) assert.ok(!message.includes(value), `A's tail got B's "${value}": ${message}`);
      tail.socket.close();
    }
    bTail.socket.close();
  });
});

async function undo(probe: Probe, credential: Credential, got: Got) {
  if (probe.undo && credential.valid && got.status === 200) assert.equal((await probe.undo(got) as Got).status, 200, 'undoing what the call created');
}

describe('tenancy matrix: A aims every route at B', () => {
  for (const probe of PROBES) {
    describe(`${probe.route}: ${probe.does}`, () => {
      if (probe.bSees) {
        test("control: B's own service key sees B's data here", async () => {
          const { got, sent } = await run(probe, { name: 'B', headers: () => ({ servicekey: B.serviceKey }), valid: true }, b);
          assert.equal(got.status, 200, got.text);
          const seen = scrub(got.text, b, sent);
          assert.ok(forbidden().some((value) => seen.includes(value)), `B sees its own data: ${got.text.slice(0, 300)}`);
        });
      }
      for (const credential of CREDENTIALS[probe.auth]) {
        test(`as ${credential.name}`, async (t) => {
          if (probe.optional && !registeredRoutes(server.running.app).includes(probe.route)) return t.skip('not registered on this build');
          const atB = await run(probe, credential, b);
          await undo(probe, credential, atB.got);
          // A call that names nothing of B's has no ghost twin.
          const aimed = JSON.stringify(probe.request(b)) !== JSON.stringify(probe.request(ghost));
          const atGhost = aimed ? await run(probe, credential, ghost) : atB;
          if (aimed) await undo(probe, credential, atGhost.got);
          const where = `${credential.name}, ${probe.does}`;
          assertNothingOfB(atB.got, atB.sent, where);
          const permission = declaredPermissions(server.running.app).get(probe.route);
          if (credential.valid && credential.role && permission && !roleAllows(credential.role, permission)) {
            assert.equal(atB.got.status, 403, `${where}: the ${credential.role} role is refused here`);
            assert.deepEqual(atB.got.json, errors.roleForbidden(credential.role, leastRoleFor(permission)).body, where);
          } else if (credential.valid) {
            assert.ok(probe.allowed.includes(atB.got.status), `${where}: status ${atB.got.status} is not one of ${probe.allowed}: ${atB.got.text.slice(0, 300)}`);
            probe.check?.(atB.got);
          } else {
            assert.ok([401, 403].includes(atB.got.status), `${where}: a credential that is not A's valid one must be refused, got ${atB.got.status}`);
          }
          // B's resources and resources that never existed must look the same to A.
          assert.equal(atB.got.status, atGhost.got.status, `${where}: B's ids and unknown ids answer differently`);
          if (!probe.createsOwn) assert.equal(scrub(atB.got.text, b, atB.sent), scrub(atGhost.got.text, ghost, atGhost.sent), `${where}: B's ids and unknown ids answer differently`);
        });
      }
    });
  }
});

describe("B's data after the matrix", () => {
  test("B's parsing rule parses B's lines and never A's", async () => {
    const own = jsonLines((await call('GET', `/v1/export?${WINDOW}`, { servicekey: A.serviceKey })).text);
    assert.ok(own.some((line) => line._line === A_LINE));
    for (const line of own) assert.ok(line.bfield === undefined && line._logtype !== `parser ${MARKER}`, `B's rule parsed A's line ${line._line}`);
    const theirs = jsonLines((await asB('GET', `/v1/export?${WINDOW}`)).text);
    assert.ok(theirs.some((line) => line.bfield === b.word && line._logtype === `parser ${MARKER}`), "B's rule works on B's lines");
  });

  test("B's view, preset, category and keys are intact and hold nothing of A's", async () => {
    const reads = {
      view: await asB('GET', `/v1/config/view/${b.viewid}`),
      preset: await asB('GET', `/v1/config/presetalert/${b.presetid}`),
      category: await asB('GET', `/v1/config/categories/views/${b.categoryId}`),
      key: await asB('GET', `/v1/config/keys/${b.keyId}`),
      parser: await asB('GET', `/v1/config/parsers/${b.parserId}`),
    };
    for (const [what, reply] of Object.entries(reads)) assert.equal(reply.status, 200, `B's ${what} is still there`);
    assert.equal(reads.view.json.name, `view ${MARKER}`);
    assert.equal(reads.preset.json.name, `preset ${MARKER}`);
    assert.equal(reads.category.json.name, b.categoryName);
    assert.equal(reads.key.json.name, `key ${MARKER}`);
    assert.equal(reads.parser.json.name, `parser ${MARKER}`);
    const board = await asB('GET', `/v1/config/board/${b.boardId}`);
    assert.deepEqual([board.status, board.json.name, board.json.category, board.json.graphs[0].graphId], [200, `board ${MARKER}`, b.boardCategoryName, b.graphId], "B's board is intact");
    for (const listing of ['/v1/config/board', '/v1/config/view', '/v1/config/presetalert', '/v1/config/categories/views', '/v1/config/categories/boards', '/v1/config/keys', '/v1/config/parsers', `/v1/export?${WINDOW}`, '/v1/alerts/deliveries']) {
      const reply = await asB('GET', listing);
      assert.equal(reply.status, 200);
      assert.ok(!reply.text.includes(INTRUDER), `A's writes reached B's ${listing}`);
    }
    await ingest(B.ingestionKey, b.host, [{ line: 'B still ingests' }]);
    assert.equal((await asB('GET', '/v1/config/keys')).status, 200, "B's service key still works");
  });

  test("B's member, group, retention and audit trail are intact and hold nothing of A's", async () => {
    const member = await asB('GET', `/v1/config/members/${b.memberEmail}`);
    assert.equal(member.status, 200);
    assert.equal(member.json.role, 'admin');
    assert.deepEqual(member.json.groups, [b.groupId]);
    assert.equal(member.json.active, false, "no one set B's member's password");
    const group = await asB('GET', `/v1/config/groups/${b.groupId}`);
    assert.equal(group.status, 200);
    assert.equal(group.json.name, b.groupName);
    assert.equal(group.json.access_scopes, `app:${MARKER}`);
    assert.deepEqual(group.json.members, [b.memberEmail]);
    assert.equal((await asB('GET', '/v1/config/retention')).json.retentionDays, B_RETENTION_DAYS);
    const exclusion = await asB('GET', `/v1/config/ingestion/exclusions/${b.exclusionId}`);
    assert.deepEqual([exclusion.status, exclusion.json.title, exclusion.json.active], [200, `exclusion ${MARKER}`, false]);
    assert.deepEqual((await asB('GET', '/v1/config/ingestion/status')).json, { is_ingesting: true });
    const indexRate = (await asB('GET', '/v1/config/index-rate')).json;
    assert.deepEqual([indexRate.max_lines, indexRate.enabled, indexRate.channels.email], [777_777, true, [`rate${MARKER}@example.com`]]);
    assert.equal((await asB('GET', '/v1/config/archiving')).json.bucket, MARKER, "B's archiving is intact");
    const restore = await asB('GET', `/v1/archive/restore/${b.restoreId}`);
    assert.equal(restore.status, 200, restore.text);
    assert.notEqual(restore.json.status, 'cancelled', "B's restore was not cancelled by A");
    for (const listing of ['/v1/config/members', '/v1/config/groups', '/v1/config/audit?limit=500']) {
      const reply = await asB('GET', listing);
      assert.equal(reply.status, 200);
      for (const value of [INTRUDER, adminA.email, readonlyA.email, A.account]) assert.ok(!reply.text.includes(value), `B's ${listing} holds A's "${value}"`);
    }
    // A's own attempt on B's member's password is B's to see: B's trail records it, A's does not.
    const failed = await asB('GET', `/v1/config/audit?resource=session&actor=${b.memberEmail}`);
    assert.ok(failed.json.records.some((record: { action: string }) => record.action === 'session.sign-in-failed'));
  });

  test("A's e-mailed exports hold only A's lines, and A's own link downloads them", async () => {
    const mails = await eventually(() => {
      const found = smtp.messages.filter((mail) => mail.subject === 'a-export' || mail.subject === 'a-probe');
      return found.length >= 1 + 2 * CREDENTIALS.service.filter((credential) => credential.valid).length ? found : undefined;
    }, 20_000, "A's export mails");
    for (const mail of mails) {
      const text = mailTexts(mail);
      for (const value of [MARKER, b.host, b.word]) assert.ok(!text.includes(value), `A's export mail carries B's "${value}"`);
    }
    assert.ok(mails.some((mail) => mailTexts(mail).includes(A_LINE)), "A's unfiltered export has A's lines");
    const download = await call('GET', `${aLink.pathname}${aLink.search}`);
    assert.equal(download.status, 200);
    assert.ok(download.text.includes(A_LINE));
    assertNothingOfB(download, '', "A's download");
  });
});

describe('the matrix lists every route', () => {
  const builtFile = (urlPath: string) => urlPath !== '/' && !urlPath.includes(':') && fs.existsSync(path.join(VIEWER_DIR, urlPath));

  test('every route the server registers is in the matrix (a new route needs a row)', () => {
    const listed = new Set(PROBES.map((probe) => probe.route));
    const missing = registeredRoutes(server.running.app)
      // HEAD is Fastify's copy of each GET; the viewer's static files hold no organisation's data.
      .filter((route) => !route.startsWith('HEAD '))
      .filter((route) => !(route.startsWith('GET ') && (route === 'GET /' || builtFile(route.slice(4)))))
      .filter((route) => !listed.has(route));
    assert.deepEqual(missing, [], 'add a row to PROBES for each of these routes');
  });

  test('every route in the matrix is registered (no row tests a route that no longer exists)', () => {
    const registered = new Set(registeredRoutes(server.running.app));
    const stale = PROBES.filter((probe) => !probe.optional && !registered.has(probe.route)).map((probe) => probe.route);
    assert.deepEqual(stale, []);
  });
});
