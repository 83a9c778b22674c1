/**
 * `browserdeck serve [flags]`: the engine and the operator UI, exactly `npm run serve -- [flags]`
 * (the same flags, read by src/engine/serve.ts; `browserdeck serve --help` lists them). The
 * arguments pass through untouched, so commander does not parse the engine's flags.
 */
import type { Command } from 'commander';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the engine and the operator UI (the flags of `npm run serve`; serve --help lists them)')
    .argument('[flags...]', 'engine flags, e.g. --port 8420 --data-dir DIR')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (_flags: string[], _opts: unknown, cmd: Command) => {
      // Loaded only here: the other commands start without the engine's modules.
      const { runServe } = await import('../../engine/serve.js');
      process.exitCode = await runServe(cmd.args);
    });
}
