// Stylesheets are imported for their side effect (electron-vite bundles them). TypeScript checks
// that a side-effect import resolves (noUncheckedSideEffectImports, tsconfig.json): this says a
// .css module exists and exports nothing.
declare module '*.css';
