import type { FastifyBaseLogger } from 'fastify';
import type { Accounts } from '../accounts/accounts.js';
import { IngestAdmission } from '../ingest/admission.js';
import type { Intake, IntakeRequest } from '../ingest/intake.js';
import { type DropReason, type RetryPolicy, SyslogIntake } from '../ingest/syslog/syslog-intake.js';

/**
 * A SyslogIntake over an intake whose writes fail on cue and a key lookup that names an
 * organisation for any key (`org-KEY`), for tests of the syslog write path and the listeners that
 * need a store to fail, which the real server's cannot be made to do.
 */

/** A logger that keeps what it was told: each call's level, object and message. */
export function recordingLog(): FastifyBaseLogger & { lines: { level: string; object: unknown; message?: string }[] } {
  const lines: { level: string; object: unknown; message?: string }[] = [];
  const at = (level: string) => (object: unknown, message?: string) => void lines.push({ level, object, message });
  return { lines, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } as unknown as FastifyBaseLogger & { lines: typeof lines };
}

/**
 * An intake whose writes for an organisation throw what `failures[account]` hands out first, then
 * succeed; `prepareFailures` likewise for prepare. Each prepared request gets a batch number, as
 * the real intake gives each a batch id and line ids, so a test sees which preparation a write wrote.
 */
export function failingIntake(failures: Record<string, unknown[]> = {}, prepareFailures: Record<string, unknown[]> = {}) {
  const written: { account: string; lines: number }[] = [];
  const writtenBatches: number[] = [];
  const attemptedBatches: number[] = [];
  let attempts = 0;
  let prepares = 0;
  const intake = {
    admit() {},
    async prepare(request: IntakeRequest) {
      prepares++;
      const failure = prepareFailures[request.account]?.shift();
      if (failure !== undefined) throw failure;
      return { ...request, batch: prepares };
    },
    async write(prepared: IntakeRequest & { batch: number }, _log: FastifyBaseLogger, queued?: () => void) {
      attempts++;
      attemptedBatches.push(prepared.batch);
      queued?.();
      const failure = failures[prepared.account]?.shift();
      if (failure !== undefined) throw failure;
      written.push({ account: prepared.account, lines: prepared.rawLines.length });
      writtenBatches.push(prepared.batch);
    },
  } as unknown as Intake;
  return { intake, written, writtenBatches, attemptedBatches, attempts: () => attempts, prepares: () => prepares };
}

/** Retries that take milliseconds, so a test sees the tries run out. */
export const QUICK_RETRY = { attempts: 4, firstDelayMs: 5, maxDelayMs: 20 };

export function syslogIntakeOver(
  intake: Intake,
  accountForKey: (key: string) => Promise<string | null> = async (key) => `org-${key}`,
  retry: Partial<RetryPolicy> = QUICK_RETRY,
) {
  const drops: { reason: DropReason; messages: number }[] = [];
  const log = recordingLog();
  const syslog = new SyslogIntake({
    accounts: { accountForKey } as unknown as Accounts,
    intake,
    admission: new IngestAdmission(() => 0, { maxQueuedLines: 1000, maxReadingBytes: 1 << 30, waitMs: 0 }),
    fallbackKey: undefined,
    dropped: (_protocol, reason, messages) => drops.push({ reason, messages }),
    log,
    retry,
  });
  return { syslog, drops, log };
}
