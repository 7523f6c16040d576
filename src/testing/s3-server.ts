import { createHash, createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

/** s3rver's own credentials: it checks request signatures against them. */
export const S3RVER_KEY = 'S3RVER';
export const S3RVER_SECRET = 'S3RVER';

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

export interface TestS3 {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  bucket: string;
  /** Every object's key in the bucket, sorted. */
  keys(): Promise<string[]>;
  /** An object's bytes. */
  object(key: string): Promise<Buffer>;
  /** A gzip JSON Lines object's records. */
  records(key: string): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

/** A real S3 server (s3rver) on loopback with one bucket, and a client that reads it as the tests' eyes. */
export async function startTestS3(bucket = 'archive-test'): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const address = await server.run();
  const endpoint = `http://127.0.0.1:${address.port}`;
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_SECRET } });
  const object = async (key: string) => Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToByteArray());
  return {
    endpoint,
    bucket,
    async keys() {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      return (listed.Contents ?? []).map((entry) => entry.Key!).sort();
    },
    object,
    async records(key) {
      const text = gunzipSync(await object(key)).toString('utf8');
      return text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    },
    async close() {
      client.destroy();
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text).digest();

/**
 * Whether a request carries a valid AWS Signature Version 4 for these credentials: the check
 * s3rver leaves out. The payload is trusted to match its declared hash (x-amz-content-sha256).
 */
function signatureError(request: http.IncomingMessage, accessKey: string, secret: string): { code: string; message: string } | undefined {
  const authorization = request.headers.authorization ?? '';
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!match) return { code: 'AccessDenied', message: 'Requests must be signed with AWS Signature Version 4' };
  const [, key, day, region, service, signedHeaders, signature] = match;
  if (key !== accessKey) return { code: 'InvalidAccessKeyId', message: 'The AWS Access Key Id you provided does not exist in our records.' };
  const url = request.url ?? '/';
  const [pathPart, queryPart = ''] = url.split('?');
  const query = queryPart
    .split('&')
    .filter(Boolean)
    .map((pair) => (pair.includes('=') ? pair : `${pair}=`))
    .sort()
    .join('&');
  const headers = signedHeaders
    .split(';')
    .map((name) => `${name}:${String(request.headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const canonical = [request.method, pathPart, query, headers, signedHeaders, String(request.headers['x-amz-content-sha256'] ?? 'UNSIGNED-PAYLOAD')].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', String(request.headers['x-amz-date']), scope, sha256(canonical)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
  if (hmac(signingKey, toSign).toString('hex') !== signature) {
    return { code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided. Check your key and signing method.' };
  }
  return undefined;
}

const s3ErrorXml = (code: string, message: string) => `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;

export interface StoreGate {
  endpoint: string;
  /** While above 0, each object upload fails mid-way (its body partly read, then a 500), and this goes down. */
  failPuts: number;
  failedPuts: number;
  close(): Promise<void>;
}

/**
 * A proxy in front of s3rver that checks request signatures against s3rver's credentials (so a
 * wrong secret is refused as S3 refuses it) and fails uploads on purpose when told to.
 */
export async function startStoreGate(target: string, credentials = { accessKey: S3RVER_KEY, secret: S3RVER_SECRET }): Promise<StoreGate> {
  const upstream = new URL(target);
  const server = http.createServer((request, response) => {
    const refuse = (status: number, code: string, message: string) => {
      request.resume();
      response.writeHead(status, { 'content-type': 'application/xml' });
      response.end(s3ErrorXml(code, message));
    };
    const refused = signatureError(request, credentials.accessKey, credentials.secret);
    if (refused) return refuse(403, refused.code, refused.message);
    const isUpload = request.method === 'PUT' && !(request.url ?? '').includes('logstead-access-check');
    if (isUpload && gate.failPuts > 0) {
      gate.failPuts--;
      gate.failedPuts++;
      // Part of the body is taken, then the store fails, as one failing mid-upload does.
      request.once('data', () => refuse(500, 'InternalError', 'We encountered an internal error. Please try again.'));
      request.once('end', () => {
        if (!response.headersSent) refuse(500, 'InternalError', 'We encountered an internal error. Please try again.');
      });
      return;
    }
    // The Host header stays the client's: the request is signed with it.
    const forwarded = http.request({ host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    forwarded.on('error', () => response.destroy());
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const gate: StoreGate = {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    failPuts: 0,
    failedPuts: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return gate;
}
