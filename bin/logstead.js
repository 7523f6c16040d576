#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 node
// Memory under a fleet's load (docs/performance.md, "Memory under the fleet"), each setting measured
// there at the same CPU:
// - MALLOC_ARENA_MAX and MALLOC_MMAP_THRESHOLD_ are for the C library's allocator (glibc; others
//   ignore them): at most two arenas for Node's threads, and buffers over 128 KiB mapped on their
//   own, so that they go back to the system when freed instead of staying in an arena (30-60 MiB
//   off the median RSS under a fleet of 32 senders).
// `npm start` and the Dockerfile set the same; `node bin/logstead.js` alone ignores this line. V8's
// heap growth is set by `serve` itself (src/cli.ts), so it holds however the server is started.
// The compiled CLI lives in dist/ (built by `npm install` through the prepare script).
import { main } from '../dist/src/cli.js';

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
