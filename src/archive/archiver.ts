import type { FastifyBaseLogger } from 'fastify';
import type { LogStore } from '../store/log-store.js';
import type { ArchiveConfigs } from './archive-config.js';
import { type ArchiveFiles, type ClaimedFile, type PlannedFile } from './archive-files.js';
import { ArchiveBucket, storeError } from './bucket.js';
import { checkArchiveEndpoint } from './endpoint-check.js';
import { HOUR_MS } from './object-names.js';

/** How long a node's claim on a file it is writing lasts; renewed every third of it, so only a dead node's runs out. */
export const ARCHIVE_CLAIM_MS = 30_000;
const RETRY_BASE_MS = 2_000;
const RETRY_MAX_MS = 10 * 60_000;
/** gzip level of the archive objects. */
const GZIP_LEVEL = 1;
/** Files written at once by one node. */
const FILES_PER_ROUND = 4;

export interface ArchiverOptions {
  /** LOGSTEAD_ARCHIVE_DELAY_MINUTES in ms: how long after its hour closes an hour is archived. */
  delayMs: number;
  /** LOGSTEAD_ARCHIVE_INTERVAL_SECONDS in ms. */
  intervalMs: number;
  /**
   * How long after a line's arrival it is surely in the store: its id (and so its arrival time)
   * is given before the write, which can take a moment under load. A pass covers arrivals up to
   * this long ago only, so no line arrives in a window already archived.
   */
  settleMs: number;
  allowPrivate: boolean;
  /** Hears of each file written or failed, for the metrics. */
  recorded?: (outcome: { lines: number; bytes: number } | { failed: true }) => void;
}

const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

/**
 * Archives each organisation's lines to its bucket, every line exactly once. A line is archived
 * by its time's hour, once that hour has closed and the delay for late lines has passed; which
 * lines are archived is decided by their arrival (from the line id, which every node and restart
 * reads alike), never by "what is there now". Each pass plans files (an hour's lines that arrived
 * in a window) and records them with the position the next pass continues from in one
 * transaction; the files are then written by whichever node claims them. A file's lines are fixed
 * when it is planned, so a retried or taken-over write rewrites the same object with the same
 * lines: no line is lost or written twice, and the bucket holds nothing but archive objects.
 * Lines that arrive for an hour already archived go to its next file (`...HH00.1.json.gz`).
 */
export class Archiver {
  private timer: NodeJS.Timeout | undefined;
  private renewal: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly configs: ArchiveConfigs,
    private readonly files: ArchiveFiles,
    private readonly store: LogStore,
    private readonly options: ArchiverOptions,
    private readonly log: FastifyBaseLogger,
    /** The arrival clock: line ids are numbered from the real clock, so this is Date.now outside unit tests. */
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.stopped = false;
    this.renewal = setInterval(() => {
      this.files.extendClaims([...this.inFlight], this.now() + ARCHIVE_CLAIM_MS).catch(() => {
        // The database did not answer: the claims last until the next renewal does.
      });
    }, ARCHIVE_CLAIM_MS / 3);
    this.renewal.unref();
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .catch((error) => this.log.error({ err: error }, 'archiving failed'))
        .finally(() => {
          this.running = undefined;
          this.schedule(this.options.intervalMs);
        });
    }, delayMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.renewal);
    await this.running;
  }

  /** One round: a pass for every organisation that archives, then the files due. */
  async runOnce(): Promise<void> {
    for (const account of await this.configs.accounts()) {
      if (this.stopped) return;
      await this.pass(account).catch((error) => this.log.error({ err: error, account }, 'planning archive files failed'));
    }
    for (;;) {
      if (this.stopped) return;
      const claimed = await this.files.claimDue(this.now(), FILES_PER_ROUND, ARCHIVE_CLAIM_MS);
      if (claimed.length === 0) return;
      for (const file of claimed) this.inFlight.add(file.token);
      try {
        await Promise.all(claimed.map((file) => this.write(file)));
      } finally {
        for (const file of claimed) this.inFlight.delete(file.token);
      }
    }
  }

  /** Plans the files of the lines that arrived since the last pass, or whose hour has just become due. */
  private async pass(account: string): Promise<void> {
    const position = await this.files.position(account);
    if (!position) return;
    const passedTo = this.now() - this.options.settleMs;
    if (passedTo <= position.passedTo) return;
    const eligibleBefore = Math.max(position.eligibleBefore, floorHour(passedTo - this.options.delayMs));
    const hours = await this.store.archiveHours(account, {
      configuredAt: position.configuredAt,
      passedFrom: position.passedTo,
      passedTo,
      eligibleFrom: position.eligibleBefore,
      eligibleBefore,
    });
    const planned: PlannedFile[] = hours.map(({ hour, lines }) => ({
      hour,
      // An hour that became due in this pass takes every line that arrived since archiving began;
      // one already due takes those that arrived since the last pass.
      arrivalFrom: hour >= position.eligibleBefore ? position.configuredAt : position.passedTo,
      arrivalTo: passedTo,
      lines,
    }));
    await this.files.recordPass(account, position, { passedTo, eligibleBefore }, planned, this.now());
  }

  private async write(file: ClaimedFile): Promise<void> {
    let bucket: ArchiveBucket | undefined;
    try {
      const target = await this.configs.target(file.account);
      if (!target) return; // archiving ended meanwhile; its pending files went with it
      // The endpoint was checked when saved; its name may resolve elsewhere now. (The S3 client's
      // connections check again, through publicOnlyLookup.) A refusal is recorded and retried.
      await checkArchiveEndpoint(target, this.options.allowPrivate);
      // The engine reads the lines once, writes their export records and gzips them: no line
      // becomes a JavaScript value (bench/archive; docs/performance.md). Level 1: valid gzip that
      // every reader takes, for far less CPU than the default level.
      const { body, lines } = await this.store.archiveObject(file.account, file.hour, file.arrivalFrom, file.arrivalTo, GZIP_LEVEL);
      bucket = await ArchiveBucket.open(target, this.options.allowPrivate);
      await bucket.put(file.objectKey, body);
      if (await this.files.written(file, lines, body.length, this.now())) this.options.recorded?.({ lines, bytes: body.length });
    } catch (error) {
      const reason = storeError(error);
      const retryAt = this.now() + Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.min(file.attempts, 20));
      this.log.warn({ account: file.account, object: file.objectKey, attempts: file.attempts + 1 }, `writing an archive file failed, retried later: ${reason}`);
      this.options.recorded?.({ failed: true });
      await this.files.failed(file, reason, retryAt).catch(() => {
        // Not recorded: the claim runs out and the file is written again, as it would be anyway.
      });
    } finally {
      bucket?.close();
    }
  }
}
