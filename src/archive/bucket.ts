import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { S3Client } from '@aws-sdk/client-s3';
import { publicOnlyLookup } from '../lib/private-address.js';
import type { ArchiveConfigInput } from './archive-config.js';

/** Each request to the store gives up after this; the archiver retries with backoff. */
const REQUEST_TIMEOUT_MS = 30_000;
const CONNECT_TIMEOUT_MS = 10_000;

/** The SDK is loaded at the first archive: most servers never archive, and it is large. */
let sdk: Promise<typeof import('@aws-sdk/client-s3')> | undefined;
const loadSdk = () => (sdk ??= import('@aws-sdk/client-s3'));

/** A store's refusal in its own words: its error code and message, and the HTTP status. */
export function storeError(error: unknown): string {
  const failure = error as { name?: string; Code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = failure.$metadata?.httpStatusCode;
  const code = failure.Code ?? failure.name ?? 'Error';
  const message = failure.message && failure.message !== code && failure.message !== 'UnknownError' ? `: ${failure.message}` : '';
  return `${code}${message}${status ? ` (HTTP ${status})` : ''}`;
}

/**
 * One organisation's bucket, through the AWS SDK: S3 itself, or any store that speaks its API at
 * `endpoint` (MinIO, Ceph, R2, IBM COS, DigitalOcean Spaces). With private endpoints not allowed,
 * every connection resolves its host through publicOnlyLookup, so a name that points inside
 * (now or later) is refused when connecting.
 */
export class ArchiveBucket {
  private constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly s3: typeof import('@aws-sdk/client-s3'),
  ) {}

  static async open(config: ArchiveConfigInput, allowPrivate: boolean): Promise<ArchiveBucket> {
    const s3 = await loadSdk();
    const lookup = allowPrivate ? undefined : publicOnlyLookup;
    const client = new s3.S3Client({
      region: config.region || 'us-east-1',
      endpoint: config.endpoint || undefined,
      forcePathStyle: config.forcepathstyle,
      credentials: { accessKeyId: config.accesskey, secretAccessKey: config.secretkey },
      // Logstead retries a whole file itself, with backoff, and records each failure.
      maxAttempts: 1,
      // Checksums only where S3 requires them: many S3-compatible stores refuse the newer defaults.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: {
        requestTimeout: REQUEST_TIMEOUT_MS,
        connectionTimeout: CONNECT_TIMEOUT_MS,
        httpAgent: new http.Agent({ keepAlive: true, lookup }),
        httpsAgent: new https.Agent({ keepAlive: true, lookup }),
      },
    });
    return new ArchiveBucket(client, config.bucket, s3);
  }

  async put(key: string, body: Buffer): Promise<void> {
    await this.client.send(new this.s3.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: 'application/gzip' }));
  }

  /**
   * Proves the credentials can write: a small object is written and deleted again (the bucket
   * keeps archive objects only). Throws the store's error.
   */
  async check(): Promise<void> {
    const key = `logstead-access-check-${randomUUID()}`;
    await this.client.send(new this.s3.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: 'Logstead checks it may write here; this object is deleted at once.' }));
    await this.client.send(new this.s3.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  close(): void {
    this.client.destroy();
  }
}
