export { createEngine, type Engine } from './engine.js';
export type { EngineOptions } from './config.js';
export { DEFAULT_PORT, defaultDataDir } from './config.js';
