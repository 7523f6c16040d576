import fs from 'node:fs';

/**
 * Resident memory of a process, from /proc (Linux), in MiB; 0 when it cannot be read. `file` is the
 * part mapped from files (the programs' and libraries' code and data, which the kernel may drop and
 * read again), `total` counts it with the anonymous memory the process allocated.
 */
export function residentMiB(pid: number | undefined): { total: number; file: number } {
  if (!pid) return { total: 0, file: 0 };
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
    return { total: kib('VmRSS') / 1024, file: kib('RssFile') / 1024 };
  } catch {
    return { total: 0, file: 0 };
  }
}

/** A process's whole resident memory in MiB (residentMiB's total). */
export function rssMiB(pid: number | undefined): number {
  return residentMiB(pid).total;
}

/** CPU time a process has used (user + system), from /proc (Linux), in seconds; 0 when unreadable. */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    return statCpuSeconds(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return 0;
  }
}

/** Linux reports process times in clock ticks of 1/100 s (USER_HZ) on every common platform. */
const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU seconds from a /proc stat line (a process's or a thread's). */
function statCpuSeconds(stat: string): number {
  // Fields after the command name (which may hold spaces and parentheses): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/**
 * CPU seconds of a process's threads grouped by thread name (digits and trailing separators taken
 * off, so the engine's pool threads `MergeMutate3`/`MergeMutate4` count as one), from
 * /proc/<pid>/task (Linux). Threads that ended between two readings are not in the later one.
 */
export function cpuSecondsByThread(pid: number | undefined): Map<string, number> {
  const byName = new Map<string, number>();
  if (!pid) return byName;
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const task of tasks) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      const name = task === String(pid) ? 'main thread' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[\d:_-]+$/, '') || 'unnamed';
      byName.set(name, (byName.get(name) ?? 0) + statCpuSeconds(stat));
    } catch {
      // The thread ended while we read.
    }
  }
  return byName;
}
