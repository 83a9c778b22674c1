/**
 * Kernel's app tools with Kernel's names and arguments: list apps, invoke an action and wait for
 * it, read deployments and invocations. `invoke_action` is one synchronous `POST /invocations`
 * (the engine waits up to 100 s for the result), then the whole invocation record.
 */
import { z } from 'zod';
import { defineTool, jsonResult, textResult, type ToolDef } from './tool.js';
import { seg } from './engine-call.js';
import type { Invocation } from '../../../shared/wire/apps.js';

const listApps = defineTool({
  name: 'list_apps',
  description: 'The apps deployed in this project, with their versions and actions. Use it before invoke_action.',
  kind: 'read',
  input: {
    app_name: z.string().optional().describe('Only the app with this exact name.'),
    version: z.string().optional().describe('Only this version label (e.g. "latest").'),
  },
  async run({ app_name, version }, { api, signal }) {
    const apps = await api.json<unknown[]>('GET', '/apps', { query: { app_name, version }, signal });
    return apps.length ? jsonResult(apps) : textResult('No apps found');
  },
});

const invokeAction = defineTool({
  name: 'invoke_action',
  description:
    "Run an action of a deployed app and wait for its result (up to 100 s; a longer run answers with its state, follow it with get_invocation). The payload is the action's input as a JSON string.",
  kind: 'write',
  input: {
    app_name: z.string().min(1).describe('The app.'),
    action_name: z.string().min(1).describe('The action of that app.'),
    payload: z.string().optional().describe("JSON string with the action's input."),
    version: z.string().optional().describe('The app version (default "latest").'),
  },
  async run({ app_name, action_name, payload, version }, { api, signal }) {
    const created = await api.json<{ id: string }>('POST', '/invocations', { json: { app_name, action_name, payload, version: version ?? 'latest' }, signal });
    return jsonResult(await api.json<Invocation>('GET', `/invocations/${seg(created.id)}`, { signal }));
  },
});

const getInvocation = defineTool({
  name: 'get_invocation',
  description: 'An invocation of an app action: its status (queued, running, succeeded, failed), output, reason and times.',
  kind: 'read',
  input: { invocation_id: z.string().min(1).describe('The id invoke_action answered.') },
  async run({ invocation_id }, { api, signal }) {
    return jsonResult(await api.json<Invocation>('GET', `/invocations/${seg(invocation_id)}`, { signal }));
  },
});

const getDeployment = defineTool({
  name: 'get_deployment',
  description:
    'A deployment of an app: its status (queued, in_progress, running, failed, stopped), reason, entrypoint and times (the version is on list_apps).',
  kind: 'read',
  input: { deployment_id: z.string().min(1).describe('The deployment id (from list_deployments).') },
  async run({ deployment_id }, { api, signal }) {
    return jsonResult(await api.json('GET', `/deployments/${seg(deployment_id)}`, { signal }));
  },
});

const listDeployments = defineTool({
  name: 'list_deployments',
  description: "The project's deployments, newest first; optionally of one app.",
  kind: 'read',
  input: { app_name: z.string().optional().describe('Only deployments of this app.') },
  async run({ app_name }, { api, signal }) {
    const deployments = await api.json<unknown[]>('GET', '/deployments', { query: { app_name }, signal });
    return deployments.length ? jsonResult(deployments) : textResult('No deployments found');
  },
});

export const appTools: ToolDef[] = [listApps, invokeAction, getInvocation, getDeployment, listDeployments];
