/**
 * ESM resolve hook of app processes: a bare import the app cannot resolve from its own
 * directory (`@onkernel/sdk`, `playwright-core` when the app ships no node_modules) is
 * resolved again from the engine's installation. CommonJS gets the same fallback through
 * NODE_PATH; ES modules ignore NODE_PATH, hence this hook. Registered by app-runner-child.mjs.
 */
let fallbackParentURL;

/** @param {{fallbackParentURL: string}} data */
export async function initialize(data) {
  fallbackParentURL = data.fallbackParentURL;
}

const BARE = /^(?![./]|[a-zA-Z][a-zA-Z0-9+.-]*:)/;

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (err) {
    if (!fallbackParentURL || !BARE.test(specifier) || (err?.code !== 'ERR_MODULE_NOT_FOUND' && err?.code !== 'MODULE_NOT_FOUND')) throw err;
    try {
      return await nextResolve(specifier, { ...context, parentURL: fallbackParentURL });
    } catch {
      throw err;
    }
  }
}
