/**
 * Web console, the identity and apps screens against a real engine: Proxies (a custom proxy
 * pointing at a real loopback proxy is created, checked — available — renamed, deleted), Auth
 * connections (one for a local login site; a login started from the screen shows its flow and
 * hosted URL and the timeline; deleted), Invocations (the sample app deployed through the
 * official client, listed under Deployments; an invocation made through the API shows its
 * status, output and events; one started from the screen's form succeeds).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, type Console } from './console-harness.js';
import { shown, TEST_TIMEOUT } from './session-panes-helpers.js';
import { startEchoServer, startTestProxy, type TestProxy } from '../helpers/test-proxy.js';
import { startLoginSite, type LoginSite } from '../helpers/login-site.js';
import { deploy, sampleFiles } from '../engine/apps/app-helpers.js';

let c: Console;
let proxy: TestProxy;
let echo: Awaited<ReturnType<typeof startEchoServer>>;
let site: LoginSite;

beforeAll(async () => {
  proxy = await startTestProxy();
  echo = await startEchoServer();
  site = await startLoginSite({ 'ann@example.test': { password: 'correct horse' } });
  c = await openConsole({ identity: { proxyCheckUrl: `${echo.url}/ip` } });
  c.page.setDefaultTimeout(90_000);
  await c.signIn();
}, TEST_TIMEOUT);
afterAll(async () => {
  await c?.close();
  await proxy?.close();
  await echo?.close();
  await site?.close();
}, TEST_TIMEOUT);

const go = async (path: string, heading: string): Promise<void> => {
  await c.page.goto(`${c.te.url}/#${path}`);
  await c.page.getByRole('heading', { name: heading, exact: true }).waitFor();
};

describe('web console: identity and apps screens', () => {
  it(
    'proxies: create a custom proxy, check it (available), rename, delete',
    async () => {
      const { page, te } = c;
      await go('/proxies', 'Proxies');
      await page.getByRole('heading', { name: 'No proxies' }).waitFor();
      await c.screenshot('proxies-empty');
      await page.getByRole('button', { name: 'New proxy' }).first().click();
      const dlg = page.getByRole('dialog', { name: 'New proxy' });
      await dlg.getByLabel('Name', { exact: true }).fill('loopback-proxy');
      await dlg.getByLabel('Host', { exact: true }).fill('127.0.0.1');
      await dlg.getByLabel('Port', { exact: true }).fill(String(proxy.port));
      // A failure keeps the dialog open with the server's message: an out-of-range port.
      await dlg.getByLabel('Port', { exact: true }).fill('70000');
      await dlg.getByRole('button', { name: 'Create proxy' }).click();
      const problem = await dlg.getByRole('alert').textContent();
      expect(problem).toContain('port');
      expect(problem).not.toMatch(/^\s*(Error|undefined|\[object)/);
      await c.screenshot('proxies-create-error');
      await dlg.getByLabel('Port', { exact: true }).fill(String(proxy.port));
      await dlg.getByRole('button', { name: 'Create proxy' }).click();
      await dlg.waitFor({ state: 'detached' });

      const row = (name: string) => page.getByRole('row').filter({ hasText: name });
      await shown(c, row('loopback-proxy'));
      expect(await row('loopback-proxy').textContent()).toContain(`127.0.0.1:${proxy.port}`);
      await row('loopback-proxy').getByText('unchecked').waitFor();

      await row('loopback-proxy').getByRole('button', { name: 'Check' }).click();
      await shown(c, row('loopback-proxy').getByText('available', { exact: true }));
      expect(proxy.seen.length).toBeGreaterThan(0);
      await c.screenshot('proxies-list');

      await row('loopback-proxy').getByRole('button', { name: 'Rename' }).click();
      const rename = page.getByRole('dialog', { name: 'Rename proxy' });
      await rename.getByLabel('Name', { exact: true }).fill('office-proxy');
      await rename.getByRole('button', { name: 'Save' }).click();
      await shown(c, row('office-proxy'));
      const [p] = (await te.client.proxies.list()).items;
      expect(p).toMatchObject({ name: 'office-proxy', status: 'available' });

      await row('office-proxy').getByRole('button', { name: 'Delete' }).click();
      await page
        .getByRole('dialog', { name: /Delete proxy/ })
        .getByRole('button', { name: 'Delete' })
        .click();
      await page.getByRole('heading', { name: 'No proxies' }).waitFor();
      expect((await te.client.proxies.list()).items).toHaveLength(0);
    },
    TEST_TIMEOUT,
  );

  it(
    'auth connections: create, start a login (flow and hosted URL shown), timeline, delete',
    async () => {
      const { page, te, context } = c;
      await go('/auth-connections', 'Auth connections');
      await page.getByRole('heading', { name: 'No auth connections' }).waitFor();
      await page.getByRole('button', { name: 'New connection' }).first().click();
      const dlg = page.getByRole('dialog', { name: 'New auth connection' });
      await dlg.getByLabel('Domain', { exact: true }).fill('127.0.0.1');
      await dlg.getByLabel('Profile name', { exact: true }).fill('ann-ui');
      await dlg.getByLabel('Login URL', { exact: true }).fill(site.loginUrl);
      await dlg.getByRole('button', { name: 'Create connection' }).click();
      await dlg.waitFor({ state: 'detached' });
      const row = page.getByRole('row').filter({ hasText: 'ann-ui' });
      await shown(c, row);
      await row.getByText('needs auth').waitFor();

      const popup = context.waitForEvent('page');
      await row.getByRole('button', { name: 'Start login' }).click();
      const hosted = await popup;
      await hosted.waitForLoadState();
      expect(hosted.url()).toContain('/hosted?code=');
      await hosted.close();
      await shown(c, row.getByText(/IN_PROGRESS/));

      await row.getByRole('button', { name: '127.0.0.1' }).click();
      const details = page.getByRole('dialog', { name: 'Auth connection: 127.0.0.1' });
      const [conn] = (await te.client.auth.connections.list()).items;
      await details.getByText(`/auth/connections/${conn.id}/hosted?code=`).waitFor();
      await details.getByText(/LOGIN IN_PROGRESS/).waitFor();
      // The timeline lists the login started from the screen.
      await shown(c, details.getByRole('table').getByText('LOGIN'));
      // The live flow stream reports the steps (the engine discovers the email field).
      await shown(c, details.getByText(/AWAITING_INPUT/).first());
      // The Flow row follows the stream (not only the list's poll).
      await shown(c, details.getByText('LOGIN IN_PROGRESS · AWAITING_INPUT'));
      await c.screenshot('auth-connection-details');
      await details.getByRole('button', { name: 'Close' }).click();
      await c.screenshot('auth-connections-list');

      await row.getByRole('button', { name: 'Delete' }).click();
      await page
        .getByRole('dialog', { name: /Delete the connection/ })
        .getByRole('button', { name: 'Delete' })
        .click();
      await page.getByRole('heading', { name: 'No auth connections' }).waitFor();
      expect((await te.client.auth.connections.list()).items).toHaveLength(0);
    },
    TEST_TIMEOUT,
  );

  it(
    'invocations: deployments listed; an API invocation shows status, output and events; one started from the form',
    async () => {
      const { page, te } = c;
      await go('/invocations', 'Invocations');
      await page.getByRole('heading', { name: 'No invocations' }).waitFor();
      await page.getByRole('heading', { name: 'No deployments' }).waitFor();
      await c.screenshot('invocations-empty');

      const { final } = await deploy(te.client, sampleFiles(), { version: '1.0.0' });
      expect(final.status, final.status_reason).toBe('running');
      const deployments = page.getByRole('table', { name: 'Deployments' });
      await shown(c, deployments.getByRole('row').filter({ hasText: final.id }).getByText('running'));
      await deployments.scrollIntoViewIfNeeded();
      await c.screenshot('invocations-deployments');

      const inv = await te.client.invocations.create({
        app_name: 'sample-app',
        action_name: 'echo',
        version: '1.0.0',
        payload: JSON.stringify({ hello: 'from-api' }),
      });
      expect(inv.status, inv.status_reason).toBe('succeeded');
      const row = page.getByRole('table', { name: 'Invocations' }).getByRole('row').filter({ hasText: inv.id });
      await shown(c, row.getByText('succeeded'));
      await row.getByRole('button', { name: 'sample-app · echo' }).click();
      const details = page.getByRole('complementary', { name: `Invocation ${inv.id}` });
      await details.getByText('"from-api"').first().waitFor();
      await details.getByText('"key_set": true').waitFor();
      const events = details.getByRole('log', { name: 'Invocation events' });
      await shown(c, events.getByText(/\[state\] succeeded/));
      expect(await events.textContent()).toMatch(/\[state\] queued[\s\S]*\[state\] running[\s\S]*\[state\] succeeded/);
      await c.screenshot('invocations-details');

      // Start one from the screen: app/version/action chosen, a payload typed.
      await page.getByRole('button', { name: 'New invocation' }).click();
      const form = page.getByRole('dialog', { name: 'New invocation' });
      await form.getByLabel('App', { exact: true }).selectOption('sample-app');
      await form.getByLabel('Version', { exact: true }).selectOption('1.0.0');
      await form.getByLabel('Action', { exact: true }).selectOption('fail');
      await form.getByLabel('Payload (JSON)', { exact: true }).fill('{not json');
      await form.getByRole('button', { name: 'Invoke' }).click();
      expect(await form.getByRole('alert').textContent()).toContain('JSON');
      await c.screenshot('invocations-new-dialog');
      await form.getByLabel('Payload (JSON)', { exact: true }).fill('{"from":"ui"}');
      await form.getByRole('button', { name: 'Invoke' }).click();
      await form.waitFor({ state: 'detached' });
      const failed = page.getByRole('complementary', { name: /^Invocation / }).filter({ hasText: 'sample-app · fail' });
      await shown(c, failed.getByText('failed', { exact: true }));
      await shown(c, failed.getByRole('log', { name: 'Invocation events' }).getByText(/about to fail/));
      await failed
        .getByText(/sample failure: the button was not found/)
        .first()
        .waitFor();
      const all = (await te.client.invocations.list()).items;
      expect(all.map((i) => i.action_name).sort()).toEqual(['echo', 'fail']);
      await c.screenshot('invocations-failed');
    },
    TEST_TIMEOUT,
  );
});
