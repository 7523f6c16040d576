#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 node --heap-growing-percent=20
// Memory under a fleet's load (docs/performance.md, "Memory under the fleet"), each setting measured
// there at the same CPU:
// - MALLOC_ARENA_MAX and MALLOC_MMAP_THRESHOLD_ are for the C library's allocator (glibc; others
//   ignore them): at most two arenas for Node's threads, and buffers over 128 KiB mapped on their
//   own, so that they go back to the system when freed instead of staying in an arena (30-60 MiB
//   off the median RSS under a fleet of 32 senders).
// - --heap-growing-percent=20: V8 lets its old generation grow by a fifth between full
//   collections, rather than by a factor it picks up to 4; the bodies a fleet has in flight are
//   promoted there while they wait to be prepared.
// `npm start` and the Dockerfile set the same; `node bin/logstead.js` alone ignores this line.
// The compiled CLI lives in dist/ (built by `npm install` through the prepare script).
import { main } from '../dist/src/cli.js';

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
