/**
 * What an agent needs to see into a session and hand it over, beyond Kernel's tools: its
 * console and network errors and telemetry, its downloads, a process run in its jail, its
 * replays, and the live view URL a human opens to watch or take over (human in the loop).
 */
import path from 'node:path/posix';
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { defineTool, jsonResult, textResult, ToolFailure, type ToolDef } from './tool.js';
import { seg } from './engine-call.js';
import { SESSION_ID } from './tools-browsers.js';
import type { Session } from '../../../shared/wire/sessions.js';
import type { ProcessExecResult } from '../../../shared/wire/session-processes.js';
import type { TelemetryEnvelope } from '../../../shared/wire/session-telemetry.js';

/** The event types that report something going wrong in the page or on its requests. */
const ERROR_TYPES = ['console_error', 'page_crashed', 'network_loading_failed', 'proxy_error', 'network_policy_denied'];
const DOWNLOADS = '/downloads';
/** A file larger than this is not inlined into an MCP message; the API's `/fs/read_file` streams it. */
const READ_MAX_BYTES = 5 * 1024 * 1024;

const getConsoleErrors = defineTool({
  name: 'get_console_errors',
  description:
    "The session's recent console errors, crashed tabs and failed requests (newest first). Recording them needs the session's console and network telemetry: when off, this turns them on and reports errors from then on.",
  kind: 'write',
  input: { session_id: SESSION_ID, limit: z.number().int().min(1).max(1000).optional().describe('At most this many events (default 50).') },
  async run({ session_id, limit }, { api, signal }) {
    const session = await api.json<Session>('GET', `/browsers/${seg(session_id)}`, { signal });
    const browser = session.telemetry?.browser;
    const off = (['console', 'network'] as const).filter((c) => !browser?.[c]?.enabled);
    if (off.length) {
      const enable = Object.fromEntries(off.map((c) => [c, { enabled: true }]));
      await api.json('PATCH', `/browsers/${seg(session_id)}`, { json: { telemetry: { browser: enable } }, signal });
    }
    const events = await api.json<TelemetryEnvelope[]>('GET', `/browsers/${seg(session_id)}/telemetry/events`, {
      query: { type: ERROR_TYPES.join(','), order: 'desc', limit: limit ?? 50 },
      signal,
    });
    return jsonResult({ ...(off.length ? { turned_on: off } : {}), errors: events.map((e) => ({ seq: e.seq, ...e.event })) });
  },
});

const getTelemetry = defineTool({
  name: 'get_telemetry',
  description:
    "The session's telemetry events (page loads, console, network, interactions, CDP control calls, system signals), filtered by category and/or type.",
  kind: 'read',
  input: {
    session_id: SESSION_ID,
    category: z
      .string()
      .optional()
      .describe('Comma-separated categories: console, network, page, interaction, control, platform, connection, system, screenshot, captcha, monitor.'),
    type: z.string().optional().describe('Comma-separated event types, e.g. page_crashed,console_error.'),
    order: z.enum(['asc', 'desc']).optional().describe('Oldest (asc, default) or newest (desc) first.'),
    limit: z.number().int().min(1).max(1000).optional().describe('At most this many events (default 100).'),
  },
  async run({ session_id, category, type, order, limit }, { api, signal }) {
    const events = await api.json<TelemetryEnvelope[]>('GET', `/browsers/${seg(session_id)}/telemetry/events`, {
      query: { category, type, order, limit },
      signal,
    });
    return jsonResult(events);
  },
});

const listDownloads = defineTool({
  name: 'list_downloads',
  description: `The files the session's browser downloaded (its ${DOWNLOADS} directory): name, path, size, modification time.`,
  kind: 'read',
  input: { session_id: SESSION_ID },
  async run({ session_id }, { api, signal }) {
    const files = await api.json<unknown[]>('GET', `/browsers/${seg(session_id)}/fs/list_files`, { query: { path: DOWNLOADS }, signal });
    return files.length ? jsonResult(files) : textResult('No downloads');
  },
});

const readDownload = defineTool({
  name: 'read_download',
  description: `A file from the session: a name is looked up in ${DOWNLOADS}, an absolute path is read as given. Text comes back as text, images as images, anything else as base64 (at most 5 MiB).`,
  kind: 'read',
  input: { session_id: SESSION_ID, path: z.string().min(1).describe(`A file name in ${DOWNLOADS}, or an absolute path in the session.`) },
  async run({ session_id, path: given }, { api, signal }): Promise<CallToolResult> {
    const file = given.startsWith('/') ? given : path.join(DOWNLOADS, given);
    const info = await api.json<{ size_bytes: number }>('GET', `/browsers/${seg(session_id)}/fs/file_info`, { query: { path: file }, signal });
    if (info.size_bytes > READ_MAX_BYTES)
      throw new ToolFailure('file_too_large', `${file} has ${info.size_bytes} bytes; read it with GET /browsers/{id}/fs/read_file`);
    const answer = await api.bytes('GET', `/browsers/${seg(session_id)}/fs/read_file`, { query: { path: file }, signal });
    const mimeType = mimeOf(file);
    if (mimeType.startsWith('image/')) return { content: [{ type: 'image', data: answer.body.toString('base64'), mimeType }] };
    const text = answer.body.toString('utf8');
    if (!text.includes('\uFFFD')) return textResult(text);
    return { content: [{ type: 'resource', resource: { uri: `file://${file}`, mimeType, blob: answer.body.toString('base64') } }] };
  },
});

function mimeOf(file: string): string {
  const ext = path.extname(file).toLowerCase();
  const images: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp' };
  return images[ext] ?? (ext === '.pdf' ? 'application/pdf' : 'application/octet-stream');
}

const exec = defineTool({
  name: 'exec',
  description: "Run a command in the session's jail (beside its browser) and wait for it: exit code, stdout and stderr as text.",
  kind: 'write',
  input: {
    session_id: SESSION_ID,
    command: z.string().min(1).describe('The program, e.g. "ls" or "/usr/bin/python3".'),
    args: z.array(z.string()).optional().describe('Its arguments.'),
    cwd: z.string().optional().describe('Working directory.'),
    timeout_sec: z.number().int().optional().describe('Kill it after this many seconds.'),
  },
  async run({ session_id, command, args, cwd, timeout_sec }, { api, signal }) {
    const r = await api.json<ProcessExecResult>('POST', `/browsers/${seg(session_id)}/process/exec`, { json: { command, args, cwd, timeout_sec }, signal });
    const { stdout_b64, stderr_b64, ...rest } = r;
    return jsonResult({ ...rest, stdout: Buffer.from(stdout_b64, 'base64').toString('utf8'), stderr: Buffer.from(stderr_b64, 'base64').toString('utf8') });
  },
});

const startReplay = defineTool({
  name: 'start_replay',
  description: "Start recording the session's screen as a video; stop it with stop_replay. Answers the replay_id and its replay_view_url.",
  kind: 'write',
  input: { session_id: SESSION_ID, max_duration_in_seconds: z.number().int().optional().describe('Stop by itself after this long.') },
  async run({ session_id, max_duration_in_seconds }, { api, signal }) {
    return jsonResult(await api.json('POST', `/browsers/${seg(session_id)}/replays`, { json: { max_duration_in_seconds }, signal }));
  },
});

const stopReplay = defineTool({
  name: 'stop_replay',
  description: 'Stop a recording started with start_replay; the video is then at its replay_view_url.',
  kind: 'write',
  input: { session_id: SESSION_ID, replay_id: z.string().min(1).describe('The replay_id start_replay answered.') },
  async run({ session_id, replay_id }, { api, signal }) {
    await api.json('POST', `/browsers/${seg(session_id)}/replays/${seg(replay_id)}/stop`, { signal });
    return jsonResult(
      (await api.json<Array<{ replay_id: string }>>('GET', `/browsers/${seg(session_id)}/replays`, { signal })).find((r) => r.replay_id === replay_id),
    );
  },
});

const listReplays = defineTool({
  name: 'list_replays',
  description: "The session's recordings: replay_id, start and end, replay_view_url.",
  kind: 'read',
  input: { session_id: SESSION_ID },
  async run({ session_id }, { api, signal }) {
    return jsonResult(await api.json('GET', `/browsers/${seg(session_id)}/replays`, { signal }));
  },
});

const getLiveViewUrl = defineTool({
  name: 'get_live_view_url',
  description:
    'The URL a human opens in a browser to watch the session live and take over mouse and keyboard (e.g. to solve a login or a CAPTCHA); tell them what to do, then continue once they say they are done.',
  kind: 'read',
  input: { session_id: SESSION_ID },
  async run({ session_id }, { api, signal }) {
    const s = await api.json<Session>('GET', `/browsers/${seg(session_id)}`, { signal });
    if (!s.browser_live_view_url) throw new ToolFailure('no_live_view', 'this session has no live view (it runs headless)');
    return jsonResult({ session_id: s.session_id, browser_live_view_url: s.browser_live_view_url });
  },
});

export const inspectTools: ToolDef[] = [
  getConsoleErrors,
  getTelemetry,
  listDownloads,
  readDownload,
  exec,
  startReplay,
  stopReplay,
  listReplays,
  getLiveViewUrl,
];
