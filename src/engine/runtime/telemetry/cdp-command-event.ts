/**
 * Turns one client frame the CDP proxy forwarded into the `data` of a `cdp_command` event
 * (Kernel §6.3), or says why not: `ignored` — not one of the 38 browser-control commands
 * (library bookkeeping, configuration, results, garbage); `dropped` — it is one, but its
 * arguments do not decode (counted in `cdp_disconnect.telemetry_dropped`). The frame is decoded
 * as JSON, so only a top-level `method` counts (a nested or escaped one cannot spoof or hide a
 * command). A frame is parsed only when it names one of them (or escapes a character, which a
 * name could hide behind): the proxy relays every client frame, and almost none are commands.
 */
import { CDP_COMMAND_METHODS, type CdpCommandMethod } from '../../../shared/wire/telemetry-categories.js';
import { CommandArgs, ID_LIMIT, MalformedCommand } from './cdp-command-args.js';
import { SANITIZERS } from './cdp-command-sanitizers.js';

export type CdpCommandData = { method: CdpCommandMethod } & Record<string, unknown>;
export type Classified = { kind: 'command'; method: CdpCommandMethod; data: CdpCommandData } | { kind: 'ignored' } | { kind: 'dropped' };

const METHODS = new Set<string>(CDP_COMMAND_METHODS);
/** A frame whose top-level `method` is one of the 38 spells its name quoted, or escapes a character of it. */
const NAMES_ONE = new RegExp(`"(${CDP_COMMAND_METHODS.map((m) => m.replace('.', '\\.')).join('|')})"|\\\\u`);

const IGNORED = { kind: 'ignored' } as const;
const DROPPED = { kind: 'dropped' } as const;

export function classifyCdpFrame(text: string, connectionId?: string): Classified {
  if (!NAMES_ONE.test(text)) return IGNORED;
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return DROPPED;
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return IGNORED;
  const { id, method, params, sessionId } = msg as Record<string, unknown>;
  if (typeof method !== 'string' || !METHODS.has(method) || id === undefined) return IGNORED;
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) return DROPPED;
  let fields: Record<string, unknown>;
  try {
    fields = SANITIZERS[method as CdpCommandMethod](new CommandArgs((params ?? {}) as Record<string, unknown>));
  } catch (err) {
    if (err instanceof MalformedCommand) return DROPPED;
    throw err;
  }
  const data: CdpCommandData = { method: method as CdpCommandMethod };
  if (Number.isSafeInteger(id)) data.command_id = id;
  if (connectionId !== undefined) data.connection_id = connectionId;
  if (typeof sessionId === 'string' && sessionId) data.session_id = sessionId.slice(0, ID_LIMIT);
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) data[k] = v;
  return { kind: 'command', method: method as CdpCommandMethod, data };
}
