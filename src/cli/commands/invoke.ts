/**
 * `browserdeck invoke <app> <action> [--payload JSON]`: starts an invocation (async, so its events
 * can be followed from the start), follows them to the end — the action's log lines to stderr —
 * and prints its output. Exits 1 when it failed. --json prints the finished invocation.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { contextOf, intOption } from '../command-context.js';
import { CliError, usageError } from '../cli-error.js';

interface InvokeFlags {
  payload?: string;
  payloadFile?: string;
  version: string;
  timeout?: number;
}

export function registerInvoke(program: Command): void {
  program
    .command('invoke')
    .description("invoke an app's action and follow it to the end")
    .argument('<app>', 'app name')
    .argument('<action>', 'action name')
    .option('--payload <json>', 'the payload, JSON text')
    .option('--payload-file <file>', 'the payload from a file (- for stdin)')
    .option('--version <version>', 'app version', 'latest')
    .option('--timeout <seconds>', 'fail it after this long (10-3600)', intOption)
    .action(async (app: string, action: string, f: InvokeFlags, cmd: Command) => {
      const ctx = contextOf(cmd);
      const payload = f.payloadFile ? fs.readFileSync(f.payloadFile === '-' ? 0 : f.payloadFile, 'utf8') : f.payload;
      if (payload !== undefined) {
        try {
          JSON.parse(payload);
        } catch {
          throw usageError('--payload must be JSON text, e.g. \'{"url":"https://example.com"}\'');
        }
      }
      const client = ctx.client();
      const created = await client.invocations.create({
        app_name: app,
        action_name: action,
        version: f.version,
        payload,
        async: true,
        async_timeout_seconds: f.timeout,
      });
      ctx.out.note(`invocation ${created.id}`);
      for await (const e of await client.invocations.follow(created.id)) {
        if (e.event === 'log') ctx.out.note(e.message);
        else if (e.event === 'error') ctx.out.note(`error: ${e.error.message}`);
      }
      const inv = await client.invocations.retrieve(created.id);
      ctx.out.result(inv, () => {
        if (inv.output) process.stdout.write(inv.output + '\n');
      });
      if (inv.status !== 'succeeded') throw new CliError(`invocation ${inv.id} ${inv.status}: ${inv.status_reason ?? 'see the log above'}`);
    });
}
