/**
 * electron-vite build of the desktop app: the Electron main process (`src/main`), the preload
 * bridge (`src/preload`) and the React renderer (`src/renderer`). Output goes to `out/`, which
 * is also what the headless server serves as the operator UI (`out/renderer`).
 */
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  main: {
    build: {
      rollupOptions: { input: { index: resolve(__dirname, 'src/main/index.ts') } },
    },
  },
  preload: {
    build: {
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        // Sandboxed preloads must be CommonJS (Electron cannot load an ESM preload with sandbox: true).
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    // Relative asset URLs so the same bundle loads from file:// in Electron and from `/` over HTTP.
    base: './',
    plugins: [react()],
    build: {
      minify: true,
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
    },
  },
});
