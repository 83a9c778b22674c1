/** The engine's version, from package.json (bundled into the desktop app's main by electron-vite). */
import pkg from '../../package.json' with { type: 'json' };

export const ENGINE_VERSION: string = pkg.version;
