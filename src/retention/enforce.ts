import type { LogStore } from '../store/log-store.js';
import { retainedFrom } from './policy.js';

export interface RetentionRules {
  /** Days kept for organisations without their own setting (LOGSTEAD_RETENTION_DAYS). */
  defaultDays: number;
  /** Every organisation, with the days its lines are kept. */
  accounts: Array<{ account: string; days: number }>;
  /** With LOGSTEAD_MAX_DISK_BYTES: the oldest days are dropped while the store is larger. */
  maxDiskBytes?: number;
  /**
   * Organisations whose lines must stay from a time on although their retention has passed: an
   * archive has not written them yet (src/archive holds them, up to its safety limit).
   */
  holds?: Map<string, number>;
}

/** One removal, for the log and the metrics. */
export interface RetentionDrop {
  reason: 'age' | 'size';
  /** The day dropped whole (partition id), or the organisation whose older lines were deleted. */
  day?: string;
  account?: string;
  lines: number;
}

/**
 * Removes what retention no longer keeps. Reads already hide it (LogStore's retainedFrom); this
 * frees the disk. Whole days are dropped with the engine's partition drop wherever no organisation
 * still keeps them, which is nearly all of it and rewrites nothing. Only an organisation that
 * keeps fewer days than another has its older lines deleted from days that must stay, with a
 * lightweight delete. A per-row TTL would fix each line's retention when it arrives; an
 * organisation's retention can change, and must then apply to the lines it already has.
 * Then, over the disk cap, the oldest days go first, always keeping the newest day.
 */
export async function enforceRetention(store: LogStore, rules: RetentionRules, now = Date.now()): Promise<RetentionDrop[]> {
  const drops: RetentionDrop[] = [];
  const longest = Math.max(rules.defaultDays, ...rules.accounts.map((entry) => entry.days));
  // A held day stays whole (other organisations' lines in it stay hidden from reads until it goes).
  const holds = rules.holds ?? new Map<string, number>();
  const dropBefore = Math.min(retainedFrom(longest, now), ...holds.values());
  const restored = await store.restoredDays(now);
  for (const day of await store.days()) {
    if (day.newestMs < dropBefore) {
      // A day with lines restored from the archive keeps them until their time runs out.
      if (restored.has(day.id)) {
        const lines = await store.deleteDayExceptRestored(day.id, now);
        if (lines > 0) drops.push({ reason: 'age', lines });
        continue;
      }
      await store.dropDay(day.id);
      drops.push({ reason: 'age', day: day.id, lines: day.lines });
    }
  }
  for (const { account, days } of rules.accounts) {
    if (days >= longest) continue;
    const lines = await store.deleteLinesBefore(account, Math.min(retainedFrom(days, now), holds.get(account) ?? Infinity));
    if (lines > 0) drops.push({ reason: 'age', account, lines });
  }
  if (rules.maxDiskBytes !== undefined) drops.push(...(await enforceDiskCap(store, rules.maxDiskBytes)));
  return drops;
}

/**
 * Drops the oldest days while the store is over `maxBytes`; the newest day always stays. It counts
 * the active parts: the parts a merge replaced leave the disk within seconds (schema.ts,
 * PART_CLEANUP_SETTINGS), so counting them would drop days for bytes about to go anyway.
 */
export async function enforceDiskCap(store: LogStore, maxBytes: number): Promise<RetentionDrop[]> {
  const drops: RetentionDrop[] = [];
  const days = await store.days();
  let total = days.reduce((sum, day) => sum + day.bytesOnDisk, 0);
  for (const day of days.slice(0, -1)) {
    if (total <= maxBytes) break;
    await store.dropDay(day.id);
    total -= day.bytesOnDisk;
    drops.push({ reason: 'size', day: day.id, lines: day.lines });
  }
  return drops;
}

/** Retention runs every hour, and the disk cap, cheaper to check, every minute. */
const AGE_EVERY_MS = 3_600_000;
const SIZE_EVERY_MS = 60_000;

export interface RetentionSchedule {
  /** Runs the whole check now (at start), after any run under way. */
  runNow(): Promise<RetentionDrop[]>;
  stop(): Promise<void>;
}

/**
 * Runs retention in the background: by age every hour, by size every minute, one run at a time.
 * `rules` is asked afresh each run, so a changed organisation retention applies at the next one.
 */
export function scheduleRetention(
  store: LogStore,
  rules: () => RetentionRules | Promise<RetentionRules>,
  report: (drops: RetentionDrop[]) => void,
  onError: (error: unknown) => void,
): RetentionSchedule {
  let running: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const next = running.then(work);
    running = next.catch(() => {});
    return next;
  };
  const run = (work: () => Promise<RetentionDrop[]>) => () =>
    void serially(work).then((drops) => report(drops), onError);
  const age = setInterval(run(async () => enforceRetention(store, await rules())), AGE_EVERY_MS);
  const size = setInterval(
    run(async () => {
      const { maxDiskBytes } = await rules();
      return maxDiskBytes === undefined ? [] : enforceDiskCap(store, maxDiskBytes);
    }),
    SIZE_EVERY_MS,
  );
  age.unref();
  size.unref();
  return {
    runNow: () =>
      serially(async () => {
        const drops = await enforceRetention(store, await rules());
        report(drops);
        return drops;
      }),
    async stop() {
      clearInterval(age);
      clearInterval(size);
      await running;
    },
  };
}
