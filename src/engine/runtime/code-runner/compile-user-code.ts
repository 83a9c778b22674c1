/**
 * Turns `/playwright/execute` code (TypeScript accepted) into JavaScript for the executor: the
 * code becomes the body of `async function __browserdeck_user_code__(page, context, browser)`,
 * so `return` and `await` are legal at its top. esbuild only strips types here — nothing of
 * the code runs in the engine — and doing it in the engine keeps esbuild's native binary out
 * of the executor's sandbox (and, without bwrap, lets the executor run without the right to
 * start processes).
 */
// Loaded on the first compile: every engine start (and every test file) would pay for it otherwise.
const esbuild = () => import('esbuild');

export type Compiled = { js: string } | { error: string };

export async function compileUserCode(code: string): Promise<Compiled> {
  const wrapped = `async function __browserdeck_user_code__(page, context, browser) {\n${code}\n}`;
  try {
    const { transform } = await esbuild();
    const out = await transform(wrapped, { loader: 'ts', target: 'node20', format: 'esm', sourcefile: 'code.ts' });
    return { js: out.code };
  } catch (err) {
    const errors = (err as { errors?: { text: string; location?: { line: number; column: number } | null }[] }).errors;
    if (errors?.length)
      return {
        error: `syntax error: ${errors.map((e) => (e.location ? `${e.text} (line ${e.location.line - 1}, column ${e.location.column})` : e.text)).join('; ')}`,
      };
    return { error: `syntax error: ${err instanceof Error ? err.message : String(err)}` };
  }
}
