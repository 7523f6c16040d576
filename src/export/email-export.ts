import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable, Writable } from 'node:stream';
import zlib from 'node:zlib';
import type { ExportFiles } from './export-files.js';
import type { Outbox } from '../notify/outbox.js';
import type { LineFilter, LogStore } from '../store/log-store.js';
import type { StoredLine } from '../store/types.js';
import { exportRecord } from '../store/export-record.js';

/** Exports up to this size (compressed) are attached as well as linked. */
const ATTACH_BYTES = 1024 * 1024;

export interface EmailExportRequest {
  filter: LineFilter;
  size: number;
  prefer: 'head' | 'tail';
  email: string;
  subject?: string;
  /** The key that asked (directly or through a viewer session): the link dies with it. */
  keyId: string;
  /** Who asked (service-auth's setterOf): the delivery log shows a scoped member only their own exports. */
  setBy: string;
}

export interface EmailExportsOptions {
  /** Where an older release kept export files and their signing key: links it sent keep working. */
  dataDir: string;
  linkHours: number;
  publicUrl: () => string;
  now: () => number;
  /** Whether a key is still unrevoked and its organisation active, and not deactivated since `openedAt`. */
  keyIsLive: (keyId: string, openedAt: number) => Promise<boolean>;
}

/**
 * Export by e-mail (spec §4.2 `email`): the request is answered at once; in the background the
 * matching lines are written as gzip JSON Lines to the configuration database that every node
 * shares, and the address gets a signed download link that expires (and the file itself when it is
 * small). The link works at any node: the file and the key that signs links are shared.
 */
export class EmailExports {
  private readonly legacyDir: string;
  private readonly running = new Set<Promise<void>>();

  private constructor(
    private readonly store: LogStore,
    private readonly outbox: Outbox,
    private readonly files: ExportFiles,
    private readonly secret: Buffer,
    private readonly options: EmailExportsOptions,
  ) {
    this.legacyDir = path.join(options.dataDir, 'exports');
  }

  static async open(store: LogStore, outbox: Outbox, files: ExportFiles, options: EmailExportsOptions): Promise<EmailExports> {
    const legacyKey = path.join(options.dataDir, 'export-link.key');
    const secret = await files.secret('export-link', fs.existsSync(legacyKey) ? fs.readFileSync(legacyKey) : undefined);
    return new EmailExports(store, outbox, files, secret, options);
  }

  /** Starts an export and returns its id; failures are logged by `onError`. */
  start(request: EmailExportRequest, onError: (error: unknown) => void): string {
    const id = randomUUID();
    const job = this.run(id, request).catch(onError);
    this.running.add(job);
    void job.finally(() => this.running.delete(job));
    return id;
  }

  /** Waits for exports under way (at shutdown). */
  async drained(): Promise<void> {
    await Promise.all([...this.running]);
  }

  private sign(id: string, expires: number, keyId: string, issued: number): string {
    return createHmac('sha256', this.secret).update(`${id}:${expires}:${keyId}:${issued}`).digest('base64url');
  }

  /**
   * The file for a download link, or why not: 'forbidden' for a bad signature or a key that has
   * since been revoked (or whose organisation was deactivated), 'expired', 'missing'. The link
   * names the key that asked, under the signature, so it stops working with that key.
   */
  async resolveDownload(link: { id: string; expires: string; key: string; issued: string; signature: string }): Promise<{ content: Buffer } | 'forbidden' | 'expired' | 'missing'> {
    const { id, expires, key, issued, signature } = link;
    if (!/^[0-9a-f-]{36}$/.test(id) || !/^\d{1,16}$/.test(expires) || !/^\d{1,16}$/.test(issued) || !/^(member:)?[\w-]{1,64}$/.test(key)) return 'forbidden';
    const expected = Buffer.from(this.sign(id, Number(expires), key, Number(issued)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'forbidden';
    // A deactivation ends the link for good, even once the organisation is active again.
    if (!(await this.options.keyIsLive(key, Number(issued)))) return 'forbidden';
    if (Number(expires) < this.options.now()) return 'expired';
    const content = (await this.files.readExport(id)) ?? this.legacyFile(id);
    return content ? { content } : 'missing';
  }

  /** An export written by an older release, under the data directory. */
  private legacyFile(id: string): Buffer | undefined {
    const file = path.join(this.legacyDir, `${id}.jsonl.gz`);
    return fs.existsSync(file) ? fs.readFileSync(file) : undefined;
  }

  /** Removes files whose links have expired. */
  async sweep(): Promise<void> {
    const cutoff = this.options.now() - 3_600_000;
    await this.files.sweepExports(cutoff);
    if (!fs.existsSync(this.legacyDir)) return;
    const legacyCutoff = this.options.now() - (this.options.linkHours + 1) * 3_600_000;
    for (const name of fs.readdirSync(this.legacyDir)) {
      const file = path.join(this.legacyDir, name);
      if (fs.statSync(file).mtimeMs < legacyCutoff) fs.rmSync(file, { force: true });
    }
  }

  private async run(id: string, request: EmailExportRequest): Promise<void> {
    let lines = 0;
    const store = this.store;
    async function* jsonLines() {
      for await (const rows of store.read(request.filter, { prefer: request.prefer, limit: request.size, chronological: true })) {
        lines += rows.length;
        yield rows.map((row: StoredLine) => JSON.stringify(exportRecord(row)) + '\n').join('');
      }
    }
    const chunks: Buffer[] = [];
    const collect = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    });
    await pipeline(Readable.from(jsonLines()), zlib.createGzip(), collect);
    const content = Buffer.concat(chunks);

    const expires = this.options.now() + this.options.linkHours * 3_600_000;
    await this.files.saveExport({ id, account: request.filter.account, content, createdAt: this.options.now(), expiresAt: expires });
    // Real time, not the injectable clock: it is compared with when the organisation was deactivated.
    const issued = Date.now();
    const signature = this.sign(id, expires, request.keyId, issued);
    const link = `${this.options.publicUrl()}/v1/export/download/${id}?expires=${expires}&key=${request.keyId}&issued=${issued}&signature=${signature}`;
    const filename = `logstead-export-${new Date(request.filter.fromMs).toISOString().slice(0, 10)}-${id.slice(0, 8)}.jsonl.gz`;
    const attach = content.length <= ATTACH_BYTES;
    const range = `${new Date(request.filter.fromMs).toISOString()} to ${new Date(request.filter.toMs).toISOString()}`;
    const until = new Date(expires).toISOString();
    const text = [
      `Your Logstead export is ready: ${lines} lines from ${range}.`,
      '',
      `Download (gzip JSON Lines, valid until ${until}):`,
      link,
      ...(attach ? ['', 'The file is also attached.'] : []),
    ].join('\n');
    const html = `<!doctype html><html><body style="font-family:sans-serif">
<p>Your Logstead export is ready: <b>${lines}</b> lines from ${range}.</p>
<p><a href="${link}">Download the export</a> (gzip JSON Lines, valid until ${until}).</p>
${attach ? '<p>The file is also attached.</p>' : ''}
</body></html>`;
    await this.outbox.enqueue(request.filter.account, null, {
      integration: 'email',
      to: [request.email],
      subject: request.subject || `Logstead export: ${lines} lines`,
      text,
      html,
      ...(attach ? { attachments: [{ filename, content: content.toString('base64'), encoding: 'base64' as const }] } : {}),
    }, undefined, { setBy: request.setBy });
  }
}
