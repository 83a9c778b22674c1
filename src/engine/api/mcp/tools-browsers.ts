/**
 * Kernel's browser and profile tools, with Kernel's names and arguments (its MCP server,
 * `create_browser` … `delete_profile`), so a prompt written for Kernel works here unchanged.
 * Each is one or two calls of the engine's API as the MCP caller.
 */
import { z } from 'zod';
import { defineTool, jsonResult, textResult, ToolInputError, type ToolDef } from './tool.js';
import { seg } from './engine-call.js';
import type { Session } from '../../../shared/wire/sessions.js';
import type { Profile } from '../../../shared/wire/profiles.js';

export const SESSION_ID = z.string().min(1).describe('The browser session id (`session_id` of create_browser or list_browsers).');

function oneProfile(profile_name: string | undefined, profile_id: string | undefined): { name: string } | { id: string } | undefined {
  if (profile_name && profile_id) throw new ToolInputError('give profile_name or profile_id, not both');
  return profile_name ? { name: profile_name } : profile_id ? { id: profile_id } : undefined;
}

const createBrowser = defineTool({
  name: 'create_browser',
  description:
    'Launch a new browser session (a real Chromium in its own jail). Returns its session_id, cdp_ws_url (connect Playwright or Puppeteer over CDP) and browser_live_view_url (a human can watch and take over; absent when headless).',
  kind: 'write',
  input: {
    headless: z.boolean().optional().describe('No display and no live view (lighter). Default false.'),
    stealth: z.boolean().optional().describe('Configure the browser to look less like automation.'),
    timeout_seconds: z
      .number()
      .int()
      .optional()
      .describe('Seconds without activity (CDP or live view connections, API calls) before the session ends. Default 60; at most 259200 (72 hours).'),
    profile_name: z.string().optional().describe('Load this saved profile (cookies, logins) into the session; read-only. Not with profile_id.'),
    profile_id: z.string().optional().describe('Load the profile with this id; read-only. Not with profile_name.'),
  },
  async run({ headless, stealth, timeout_seconds, profile_name, profile_id }, { api, signal }) {
    const profile = oneProfile(profile_name, profile_id);
    const body = { headless, stealth, timeout_seconds, ...(profile ? { profile: { ...profile, save_changes: false } } : {}) };
    return jsonResult(await api.json<Session>('POST', '/browsers', { json: body, signal }));
  },
});

const getBrowser = defineTool({
  name: 'get_browser',
  description: "A browser session's state and configuration: whether it still runs, its cdp_ws_url and browser_live_view_url, its profile, proxy and timeout.",
  kind: 'read',
  input: { session_id: SESSION_ID },
  async run({ session_id }, { api, signal }) {
    return jsonResult(await api.json<Session>('GET', `/browsers/${seg(session_id)}`, { signal }));
  },
});

const listBrowsers = defineTool({
  name: 'list_browsers',
  description: 'The running browser sessions of the project this key acts in (cdp_ws_url left out; get_browser has it).',
  kind: 'read',
  input: {},
  async run(_args, { api, signal }) {
    const browsers = await api.json<Session[]>('GET', '/browsers', { signal });
    if (!browsers.length) return textResult('No browsers found');
    return jsonResult(browsers.map((b) => ({ ...b, cdp_ws_url: undefined })));
  },
});

const deleteBrowser = defineTool({
  name: 'delete_browser',
  description: 'End a browser session and free what it holds. A profile it was created to save (setup_profile) is saved now.',
  kind: 'destructive',
  input: { session_id: SESSION_ID },
  async run({ session_id }, { api, signal }) {
    await api.json('DELETE', `/browsers/${seg(session_id)}`, { signal });
    return textResult('Browser session deleted successfully');
  },
});

const setupProfile = defineTool({
  name: 'setup_profile',
  description:
    'Create a browser profile (or update an existing one) and open a browser session that saves into it: hand the returned live view URL to the user to sign into their accounts; when they are done, call delete_browser with the session_id and the profile is saved.',
  kind: 'write',
  input: {
    profile_name: z.string().min(1).describe('The profile name: 1-255 letters, digits, dots, underscores or hyphens.'),
    update_existing: z.boolean().optional().default(false).describe('When the profile exists: update it (true) or refuse (false, the default).'),
  },
  async run({ profile_name, update_existing }, { api, signal }) {
    const existing = (await api.json<Profile[]>('GET', '/profiles', { query: { query: profile_name }, signal })).find((p) => p.name === profile_name);
    if (existing && !update_existing) {
      return textResult(
        `Profile "${profile_name}" already exists (id ${existing.id}). Call setup_profile again with update_existing: true to update it, or choose another name.`,
      );
    }
    const profile = existing ?? (await api.json<Profile>('POST', '/profiles', { json: { name: profile_name }, signal }));
    const browser = await api.json<Session>('POST', '/browsers', {
      json: { stealth: true, timeout_seconds: 300, profile: { name: profile_name, save_changes: true } },
      signal,
    });
    return textResult(
      [
        `Profile "${profile_name}" ${existing ? 'loaded for update' : 'created'}.`,
        '',
        'Instructions for the user:',
        `1. Open the browser: ${browser.browser_live_view_url ?? '(no live view: this engine runs the session headless)'}`,
        '2. Sign into the accounts to keep in this profile.',
        '3. Say when done; then call delete_browser with this session_id and the profile is saved.',
        '',
        `Profile id: ${profile.id}`,
        `Session id: ${browser.session_id}`,
      ].join('\n'),
    );
  },
});

const listProfiles = defineTool({
  name: 'list_profiles',
  description: 'The saved browser profiles (cookies, logins) of this project; load one with create_browser profile_name.',
  kind: 'read',
  input: {},
  async run(_args, { api, signal }) {
    const profiles = await api.json<Profile[]>('GET', '/profiles', { signal });
    return profiles.length ? jsonResult(profiles) : textResult('No profiles found. Use setup_profile to create one.');
  },
});

const deleteProfile = defineTool({
  name: 'delete_profile',
  description: 'Delete a browser profile and the sign-ins saved in it. Cannot be undone.',
  kind: 'destructive',
  input: {
    profile_name: z.string().optional().describe('The profile to delete, by name. Not with profile_id.'),
    profile_id: z.string().optional().describe('The profile to delete, by id. Not with profile_name.'),
  },
  async run({ profile_name, profile_id }, { api, signal }) {
    const which = oneProfile(profile_name, profile_id);
    if (!which) throw new ToolInputError('give profile_name or profile_id');
    const key = 'name' in which ? which.name : which.id;
    await api.json('DELETE', `/profiles/${seg(key)}`, { signal });
    return textResult(`Profile "${key}" deleted.`);
  },
});

export const browserTools: ToolDef[] = [createBrowser, getBrowser, listBrowsers, deleteBrowser, setupProfile, listProfiles, deleteProfile];
