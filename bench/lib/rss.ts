import fs from 'node:fs';

/** Resident memory of a process, from /proc (Linux), in MiB; 0 when it cannot be read. */
export function rssMiB(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}
