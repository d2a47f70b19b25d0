import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import vue from '@vitejs/plugin-vue';

/**
 * The renderer alone: `vite -c vite.renderer.config.ts` for the browser dev loop, `vite build`
 * for the bundle in out/renderer that both Electron (loadFile) and `heapscope serve` load.
 * base './' keeps asset URLs relative so the same build works from file:// and from http://.
 */
export default defineConfig({
  root: resolve(import.meta.dirname, 'renderer'),
  base: './',
  plugins: [vue()],
  build: {
    outDir: resolve(import.meta.dirname, 'out/renderer'),
    emptyOutDir: true,
    // AG Grid alone is ~1 MB minified; one chunk is fine for a desktop app loaded from disk.
    chunkSizeWarningLimit: 2500,
  },
  server: { host: '127.0.0.1', port: 5173, strictPort: false },
  preview: { host: '127.0.0.1', port: 4173, strictPort: false },
});
