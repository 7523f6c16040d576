import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { SERVER_PREFIXES } from './api-client/client.js';

// The viewer is built into dist/web and served by the Logstead process itself at /. In
// development, the paths the API client calls go to a Logstead on port 8080.
const proxy = Object.fromEntries(SERVER_PREFIXES.map((prefix) => [prefix, prefix === '/ws' ? { target: 'ws://127.0.0.1:8080', ws: true } : 'http://127.0.0.1:8080']));

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  build: { outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)), emptyOutDir: true, sourcemap: true },
  server: { proxy },
});
