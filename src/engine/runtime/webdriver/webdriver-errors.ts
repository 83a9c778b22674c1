/**
 * chromedriver's W3C error answers (`{value: {error, message, stacktrace}}`, with the status the
 * W3C table gives each error) also carry the engine's Error object fields at the top level
 * (`code`, `message`, `details`): WebDriver clients read `value` and ignore the rest, while
 * clients of the engine's API (and its robustness checks) find the Error object they expect.
 * The status stays chromedriver's.
 */

export function withErrorObject(answer: unknown): unknown {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return answer;
  const value = (answer as { value?: unknown }).value as { error?: unknown; message?: unknown } | null | undefined;
  if (typeof value !== 'object' || value === null || typeof value.error !== 'string') return answer;
  const message = typeof value.message === 'string' && value.message ? value.message : value.error;
  return { ...answer, code: value.error.replace(/\s+/g, '_'), message, details: [] };
}
