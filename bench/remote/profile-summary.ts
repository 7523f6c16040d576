/**
 * Where a V8 CPU profile's (node --cpu-prof) time went: self time by area (a package, a Logstead
 * source file, a Node module, GC) and by function, and total time (itself and what it calls) by
 * function, each as a share of the busy time (the (idle) samples left out). Used by bench/remote;
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
  busyMs: number;
  idleMs: number;
  byArea: ProfileShare[];
  bySelf: ProfileShare[];
  byTotal: ProfileShare[];
}

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

export function summariseProfile(profile: CpuProfile, root: string): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // Sample i's time is the gap to the next sample.
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + Math.max(0, delta));
  }
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
      if (frame.functionName === '(root)') continue;
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
  return { busyMs: Math.round(busyUs / 1000), idleMs: Math.round(idleUs / 1000), byArea: ranked(areas), bySelf: ranked(selves), byTotal: ranked(totals) };
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
