/**
 * electron-vite build of the desktop app: the Electron main process (`src/main`), the preload
 * bridge (`src/preload`) and the React renderer (`src/renderer`). Output goes to `out/`, which
 * is also what the headless server serves as the operator UI (`out/renderer`).
 * The engine's child-process scripts (src/engine/runtime/assets.ts ENGINE_ASSETS) are not
 * modules of the bundle: they are copied verbatim to `out/main/engine-assets/`, keeping their
 * relative layout, and shipped unpacked from the asar (build/electron-builder.yml).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { ENGINE_ASSETS } from './src/engine/runtime/assets';

const ENGINE_ASSETS_SRC = resolve(__dirname, 'src/engine/runtime');

/** Copies the engine's child scripts next to the main bundle once it is written. */
function engineAssets(): Plugin {
  return {
    name: 'browserdeck-engine-assets',
    apply: 'build',
    writeBundle(options) {
      const outDir = options.dir ?? dirname(options.file ?? '');
      for (const name of ENGINE_ASSETS) {
        const to = join(outDir, 'engine-assets', name);
        mkdirSync(dirname(to), { recursive: true });
        copyFileSync(join(ENGINE_ASSETS_SRC, name), to);
      }
    },
  };
}

export default defineConfig({
  main: {
    plugins: [engineAssets()],
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
