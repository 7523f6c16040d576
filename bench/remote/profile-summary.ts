/**
 * Where a V8 CPU profile's (node --cpu-prof) time went: self time by area (a package, a Logstead
 * source file, a Node module, GC) and by function, and total time (itself and what it calls) of
 * Logstead's and @clickhouse/client's functions, each as a share of the main thread's busy time
 * (the (idle) samples left out). The profiler samples wall time: when the machine is saturated a
 * descheduled thread's time counts where it stopped, so read these as shares, not as CPU time. Used by bench/remote;
 * also runnable on a saved profile: node dist/bench/remote/profile-summary.js <file.cpuprofile>
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  /** Microseconds on the monotonic clock. */
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileShare {
  name: string;
  share: number;
  ms: number;
}

export interface ProfileSummary {
  /** Whether only the samples in the given window counted (else the process's whole life). */
  window: boolean;
  busyMs: number;
  idleMs: number;
  byArea: ProfileShare[];
  bySelf: ProfileShare[];
  /** Logstead's own functions and @clickhouse/client's only: the framework's frames would top it. */
  byTotal: ProfileShare[];
}

/** Frames worth a total-time row: Logstead's compiled sources and the ClickHouse client. */
const OWN_CODE = /\/dist\/src\/|\/node_modules\/@clickhouse\//;

const META_FRAMES = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

function shortUrl(url: string, root: string): string {
  let text = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (text.startsWith(root)) text = text.slice(root.length);
  const modules = text.lastIndexOf('node_modules/');
  return modules >= 0 ? text.slice(modules + 'node_modules/'.length) : text;
}

function area(frame: ProfileNode['callFrame'], root: string): string {
  if (META_FRAMES.has(frame.functionName) && !frame.url) return frame.functionName;
  if (!frame.url) return '(V8 builtins and native code)';
  const url = shortUrl(frame.url, root);
  if (frame.url.includes('/node_modules/')) {
    const parts = url.split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith('node:')) return url;
  return `logstead ${url.replace(/^dist\//, '').replace(/\.js$/, '')}`;
}

function functionName(frame: ProfileNode['callFrame'], root: string): string {
  if (!frame.url) return frame.functionName || '(anonymous)';
  return `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url, root)}:${frame.lineNumber + 1}`;
}

/**
 * `window`: only samples in [start, end] µs of the monotonic clock (process.hrtime there, the
 * profile's own clock too) count; when none fall in it, the whole profile does.
 */
export function summariseProfile(profile: CpuProfile, root: string, window?: [number, number]): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // Sample i's time is the gap to the next sample.
  const selfTimes = (inWindow: (at: number) => boolean) => {
    const selfUs = new Map<number, number>();
    let at = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      at += profile.timeDeltas[i];
      if (!inWindow(at)) continue;
      const delta = profile.timeDeltas[i + 1] ?? 0;
      selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + Math.max(0, delta));
    }
    return selfUs;
  };
  let selfUs = window ? selfTimes((at) => at >= window[0] && at <= window[1]) : new Map<number, number>();
  const windowed = selfUs.size > 0;
  if (!windowed) selfUs = selfTimes(() => true);
  let idleUs = 0;
  let busyUs = 0;
  const areas = new Map<string, number>();
  const selves = new Map<string, number>();
  const totals = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    busyUs += us;
    add(areas, area(node.callFrame, root), us);
    add(selves, functionName(node.callFrame, root), us);
    // Total time: once per function on the stack, however often it recurs.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (!OWN_CODE.test(frame.url)) continue;
      const name = functionName(frame, root);
      if (!seen.has(name)) {
        seen.add(name);
        add(totals, name, us);
      }
    }
  }
  const ranked = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 40)
      .map(([name, us]) => ({ name, share: Number((us / busyUs).toFixed(4)), ms: Math.round(us / 1000) }));
  return { window: windowed, busyMs: Math.round(busyUs / 1000), idleMs: Math.round(idleUs / 1000), byArea: ranked(areas), bySelf: ranked(selves), byTotal: ranked(totals) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node dist/bench/remote/profile-summary.js <file.cpuprofile>');
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const summary = summariseProfile(JSON.parse(fs.readFileSync(file, 'utf8')), root);
  console.log(`busy ${summary.busyMs} ms, idle ${summary.idleMs} ms`);
  for (const [title, rows] of [['area (self)', summary.byArea], ['function (self)', summary.bySelf], ['function (total)', summary.byTotal]] as const) {
    console.log(`\n${title}`);
    for (const row of rows.slice(0, 20)) console.log(`  ${(100 * row.share).toFixed(1).padStart(5)}%  ${row.name}`);
  }
}
