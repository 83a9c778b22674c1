/**
 * `browserdeck login [--url URL]`: checks a key against the engine and stores URL and key in the
 * login file (login-file.ts, mode 0600). The key comes from KERNEL_API_KEY or stdin (a hidden
 * prompt on a terminal), never from an argument. `--no-verify` stores without asking the engine.
 */
import type { Command } from 'commander';
import { contextOf } from '../command-context.js';
import { clientFor, resolveUrl } from '../connection.js';
import { usageError } from '../cli-error.js';
import { loginFilePath, writeLoginFile } from '../login-file.js';
import { readSecret } from '../read-secret.js';

export function registerLogin(program: Command): void {
  program
    .command('login')
    .description('store the engine URL and an API key (read from KERNEL_API_KEY or stdin) in the login file, mode 0600')
    .option('--no-verify', 'store without checking the key against the engine')
    .action(async (opts: { verify: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const url = resolveUrl(ctx.flags.url);
      const apiKey = process.env.KERNEL_API_KEY || (await readSecret(`API key for ${url}: `));
      if (!apiKey) throw usageError('no API key given: pipe it to `browserdeck login` or set KERNEL_API_KEY');
      // One cheap authenticated read: a wrong key or URL fails here, not at the first real command.
      if (opts.verify) await clientFor({ url, apiKey }).browsers.list({ limit: 1 });
      const file = loginFilePath();
      writeLoginFile({ url, api_key: apiKey }, file);
      ctx.out.result({ url, config_path: file }, () => process.stdout.write(`logged in to ${url} (saved in ${file}, mode 0600)\n`));
    });
}
