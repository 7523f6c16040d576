#!/usr/bin/env -S node --max-semi-space-size=64
// --max-semi-space-size: a request's lines live until their insert is acknowledged (about 100 ms
// under load), longer than V8's default young generation lets them, so they were copied into the
// old one; 64 MiB lets them die young, for about 8% more lines/s (docs/performance.md). npm start
// passes the same flag, since `node bin/logstead.js` ignores this line.
// The compiled CLI lives in dist/ (built by `npm install` through the prepare script).
import { main } from '../dist/src/cli.js';

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
