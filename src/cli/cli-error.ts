/**
 * The CLI's exit codes and its one-line errors. 0 ok, 1 the engine said no (or could not be
 * reached), 2 the command line is wrong (usage, a missing key or URL). Every error is one line
 * on stderr that names the fix; stdout stays for the command's output.
 */
import Kernel from '@onkernel/sdk';

export const EXIT_OK = 0;
export const EXIT_API = 1;
export const EXIT_USAGE = 2;

/** An error the CLI prints as one line and exits with `code`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: number = EXIT_API,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(message, EXIT_USAGE);

/** The Error object `{code, message}` of an engine answer, when there is one. */
function errorObject(body: unknown): { code?: string; message?: string } {
  if (body && typeof body === 'object') {
    const b = body as { code?: unknown; message?: unknown };
    return { code: typeof b.code === 'string' ? b.code : undefined, message: typeof b.message === 'string' ? b.message : undefined };
  }
  return {};
}

/** One line for any error the commands throw, and the exit code that goes with it. */
export function describeError(err: unknown, baseURL?: string): { line: string; code: number } {
  if (err instanceof CliError) return { line: err.message, code: err.code };
  if (err instanceof Kernel.APIConnectionError) {
    return { line: `cannot reach ${baseURL ?? 'the engine'}: is it running? (set BROWSERDECK_URL or run \`browserdeck login\`)`, code: EXIT_API };
  }
  if (err instanceof Kernel.APIError) {
    const { code, message } = errorObject(err.error);
    const what = message ?? err.message;
    const tag = `${code ?? 'error'}, HTTP ${err.status ?? '?'}`;
    if (err.status === 401) return { line: `${what} (${tag}): check KERNEL_API_KEY or run \`browserdeck login\``, code: EXIT_API };
    if (err.status === 403) return { line: `${what} (${tag}): this key may not do that; use a key of the right project or an org-wide one`, code: EXIT_API };
    return { line: `${what} (${tag})`, code: EXIT_API };
  }
  return { line: err instanceof Error ? err.message : String(err), code: EXIT_API };
}
