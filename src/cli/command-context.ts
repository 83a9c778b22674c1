/**
 * What every command's action starts from: the global flags (`--json`, `--url`) read through
 * commander, the output mode, and the engine connection, resolved only when the command talks
 * to an engine (so `mcp install` or `serve` work without a key).
 */
import { InvalidArgumentError, type Command } from 'commander';
import type Kernel from '@onkernel/sdk';
import { clientFor, resolveConnection, resolveUrl, type Connection } from './connection.js';
import { makeOutput, type Output } from './output.js';

export interface GlobalFlags {
  json?: boolean;
  url?: string;
}

export interface CommandContext {
  out: Output;
  flags: GlobalFlags;
  /** The engine URL (no key needed). */
  url(): string;
  connection(): Connection;
  client(): Kernel;
}

/** The context of the command whose action runs (`cmd` is the last argument commander passes). */
export function contextOf(cmd: Command): CommandContext {
  const flags = cmd.optsWithGlobals<GlobalFlags>();
  let client: Kernel | undefined;
  return {
    out: makeOutput(flags.json === true),
    flags,
    url: () => resolveUrl(flags.url),
    connection: () => resolveConnection(flags.url),
    client: () => (client ??= clientFor(resolveConnection(flags.url))),
  };
}

/** Parses a whole-number option; commander reports a bad value as a usage error (exit 2). */
export function intOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError(`takes a whole number, not '${value}'`);
  return n;
}
