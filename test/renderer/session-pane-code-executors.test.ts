/**
 * The Code pane's executor picker and REPL console (issue 15 item 10): a call on a new named
 * executor opens its own tab (the result names it), the executor then appears in the picker's
 * list and can be deleted; REPL cells keep their bindings, show `repl.write` output in the
 * transcript, and "Reset" starts a fresh REPL (the state is gone).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, type Console } from './console-harness.js';
import { createSession, openPane, TEST_TIMEOUT, shown } from './session-panes-helpers.js';

let c: Console;
let sessionId: string;

beforeAll(async () => {
  c = await openConsole();
  sessionId = (await createSession(c)).session_id;
}, TEST_TIMEOUT);
afterAll(async () => {
  await c?.close();
}, TEST_TIMEOUT);

describe('session pane: code executors and REPL', () => {
  it(
    'runs on a named executor, lists and deletes it; REPL cells keep state until reset',
    async () => {
      const { page, te } = c;
      await openPane(c, sessionId, 'code', 'Code');
      await page.getByLabel('Executor').fill('pane-exec');
      await page.getByLabel('Playwright code').fill('return page.url();');
      await page.getByLabel('Playwright code').press('Control+Enter');
      const result = page.getByRole('region', { name: 'Run result' });
      await shown(c, result.getByText(/tab \S+ \(opened\)/));
      const listed = async () =>
        ((await (await te.api(`/browsers/${sessionId}/playwright/executors`)).json()) as { executors: { name: string }[] }).executors.map((e) => e.name);
      expect(await listed()).toEqual(['default', 'pane-exec']);
      await page.getByRole('button', { name: 'Delete executor' }).click();
      await expect.poll(listed, { timeout: 60_000 }).toEqual(['default']);
      await expect.poll(() => page.getByLabel('Executor').inputValue(), { timeout: 60_000 }).toBe('default');

      const input = page.getByLabel('REPL input');
      const transcript = page.getByRole('region', { name: 'REPL' });
      await input.fill('let n = 41;');
      await input.press('Control+Enter');
      await shown(c, transcript.locator('.repl-cell'));
      await input.fill('repl.write(String(n + 1));');
      await page.getByRole('button', { name: 'Evaluate' }).click();
      await shown(c, transcript.locator('pre.repl-write', { hasText: '42' }));
      await c.screenshot('session-pane-code-repl');

      await page.getByRole('button', { name: 'Reset' }).click();
      await shown(c, transcript.locator('pre.repl-code', { hasText: '(reset)' }));
      await input.fill('repl.write(typeof n);');
      await input.press('Control+Enter');
      await shown(c, transcript.locator('pre.repl-write', { hasText: 'undefined' }));
    },
    TEST_TIMEOUT,
  );
});
