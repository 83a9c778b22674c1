/**
 * Web console, Processes and Logs panes: run a command and see its output and exit code; open
 * a terminal (PTY over the attach WebSocket in xterm), type a command and see the shell's
 * answer in xterm's buffer; the process is listed as running, then killed with a chosen
 * signal; a file's log lines stream into the Logs console, and a line appended later follows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, type Console } from './console-harness.js';
import { createSession, openPane, TEST_TIMEOUT } from './session-panes-helpers.js';

let c: Console;
let sessionId: string;

beforeAll(async () => {
  c = await openConsole();
  sessionId = (await createSession(c)).session_id;
}, TEST_TIMEOUT);
afterAll(async () => {
  await c?.close();
}, TEST_TIMEOUT);

describe('session pane: processes', () => {
  it(
    'runs a command and shows its output',
    async () => {
      const { page } = c;
      await openPane(c, sessionId, 'processes', 'Processes');
      await page.getByRole('heading', { name: 'No processes yet' }).waitFor();
      await page.getByLabel('Command').fill('echo out-$((40+2)); echo err-line >&2; exit 3');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      const out = page.getByRole('region', { name: 'Command output' });
      await out.waitFor({ timeout: 90_000 });
      await expect.poll(() => out.locator('pre.output').first().textContent()).toBe('out-42\n');
      expect(await out.locator('pre.output-err').textContent()).toBe('err-line\n');
      expect(await out.getByText('exit 3', { exact: true }).count()).toBe(1);
    },
    TEST_TIMEOUT,
  );

  it(
    'runs a command in an interactive terminal, then kills the shell with KILL',
    async () => {
      const { page } = c;
      await openPane(c, sessionId, 'processes', 'Processes');
      await page.getByRole('button', { name: /Open terminal/ }).click();
      const term = page.getByRole('log', { name: /Terminal: bash/ });
      await term.waitFor({ timeout: 90_000 });
      await expect.poll(() => page.locator('.terminal-bar').textContent(), { timeout: 90_000 }).toContain('attached');
      const row = page.locator('table.processes tbody tr').first();
      await expect.poll(() => row.textContent(), { timeout: 90_000 }).toContain('running');
      // State, CPU and memory come from polling process/{id}/status.
      await expect.poll(() => row.locator('td').nth(4).textContent(), { timeout: 90_000 }).toMatch(/^\d+(\.\d)? (KB|MB)$/);
      // Wait for the prompt before typing, so the input is not eaten by bash's startup.
      await expect.poll(() => term.locator('.xterm-rows').textContent(), { timeout: 90_000 }).toMatch(/[$#]\s*$/);
      await term.click();
      await page.keyboard.type('echo hi-$((6*7))-$RANDOM');
      await page.keyboard.press('Enter');
      // `hi-42-<n>` appears only as the shell's output: the typed line has `$((6*7))`.
      await expect.poll(() => term.locator('.xterm-rows').textContent(), { timeout: 90_000 }).toMatch(/hi-42-\d+/);
      await c.screenshot('session-pane-processes-terminal');

      const pid = Number((await row.locator('td').first().textContent())!.trim());
      expect(pid).toBeGreaterThan(0);
      await row.getByLabel('Signal').selectOption('KILL');
      await row.getByRole('button', { name: 'Kill' }).click();
      await expect.poll(() => row.textContent(), { timeout: 90_000 }).toContain('exited');
      await expect.poll(() => term.locator('.xterm-rows').textContent(), { timeout: 90_000 }).toContain('[process exited with code');
      await c.screenshot('session-pane-processes');
    },
    TEST_TIMEOUT,
  );
});

describe('session pane: logs', () => {
  it(
    'streams a file into the console and follows appended lines',
    async () => {
      const { page, te } = c;
      await te.client.browsers.fs.writeFile(sessionId, 'log-line-one\nlog-line-two\n', { path: '/work/app.log' });
      await openPane(c, sessionId, 'logs', 'Logs');
      await page.getByLabel('Source').selectOption('path');
      await page.getByLabel('File path').fill('/work/app.log');
      await page.getByRole('button', { name: 'Show' }).click();
      const con = page.getByRole('log', { name: 'Log console' });
      await expect.poll(() => con.locator('.xterm-rows').textContent(), { timeout: 90_000 }).toContain('log-line-two');
      expect(await con.locator('.xterm-rows').textContent()).toContain('log-line-one');
      await te.client.browsers.process.exec(sessionId, { command: 'sh', args: ['-c', 'echo appended-later >> /work/app.log'] });
      await expect.poll(() => con.locator('.xterm-rows').textContent(), { timeout: 90_000 }).toContain('appended-later');
      await c.screenshot('session-pane-logs');

      await page.getByLabel('File path').fill('/work/missing.log');
      await page.getByRole('button', { name: 'Show' }).click();
      await expect.poll(() => page.locator('.logs-pane [role="alert"]').textContent(), { timeout: 90_000 }).toContain('no such file');
    },
    TEST_TIMEOUT,
  );

  it(
    'shows a supervisor service (the session lifecycle log)',
    async () => {
      const { page } = c;
      await openPane(c, sessionId, 'logs', 'Logs');
      await page.getByLabel('Source').selectOption('supervisor');
      await page.getByLabel('Service').selectOption('session');
      await page.getByRole('button', { name: 'Show' }).click();
      await expect
        .poll(async () => Number((await page.locator('.logs-pane .log-source').textContent())!.match(/(\d+) lines/)?.[1] ?? 0), { timeout: 90_000 })
        .toBeGreaterThan(0);
    },
    TEST_TIMEOUT,
  );
});
