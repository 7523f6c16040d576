#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 node
// The two settings for the C library's allocator (glibc; others ignore them) bound Node's own
// memory under a fleet's load: at most two arenas for its threads, and buffers over 128 KiB mapped
// on their own, so that they go back to the system when freed instead of staying in an arena.
// They took 30-60 MiB off the median RSS under a fleet of 32 senders, at the same CPU
// (docs/performance.md, "Memory under the fleet"). `npm start` sets the same unless
// they are set already, since `node bin/logstead.js` ignores this line; so does the Dockerfile.
// The compiled CLI lives in dist/ (built by `npm install` through the prepare script).
import { main } from '../dist/src/cli.js';

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
