import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The viewer is built into dist/web and served by the Logstead process itself at /.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  build: { outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)), emptyOutDir: true, sourcemap: true },
  server: { proxy: { '/v1': 'http://127.0.0.1:8080', '/api': 'http://127.0.0.1:8080', '/ws': { target: 'ws://127.0.0.1:8080', ws: true } } },
});
