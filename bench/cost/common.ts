/**
 * Shared by bench/cost: the ingest benchmark's request bodies, CPU clocks for this process and for
 * another one, and the machine's load, which is printed beside every figure (the machine is shared).
 */
import fs from 'node:fs';
import os from 'node:os';
import { lineGenerator } from '../lib/synthetic-lines.js';

export const LINES_PER_BODY = 1000;

/** Request bodies exactly as bench/ingest sends them (seed 7, 1,000 lines each), with their hostnames. */
export function ingestBodies(count: number): { bodies: Buffer[]; hostnames: string[]; rawBytes: number } {
  const generator = lineGenerator(7);
  const now = Date.now();
  const bodies: Buffer[] = [];
  const hostnames: string[] = [];
  let rawBytes = 0;
  for (let b = 0; b < count; b++) {
    const lines = Array.from({ length: LINES_PER_BODY }, () => generator.next(now));
    const body = Buffer.from(JSON.stringify({ lines }));
    rawBytes += body.length;
    bodies.push(body);
    hostnames.push(generator.host());
  }
  return { bodies, hostnames, rawBytes };
}

/** CPU (user + system, every thread) this process has used, in µs. chDB's threads count here too. */
export function ownCpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

const TICK_MICROS = 10_000; // USER_HZ is 100 on Linux

/** CPU (user + system, every thread) another process has used, in µs, from /proc. */
export function processCpuMicros(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MICROS;
}

/** "load 2.31 1.80 1.52", for printing beside figures. */
export function machineLoad(): string {
  return `load ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}`;
}

export function machine(): string {
  return `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** Resident memory of this process in MiB, from /proc. */
export function ownRssMiB(): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}
