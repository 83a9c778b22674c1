/**
 * `browserdeck mcp`: the engine's MCP tools over stdio (mcp-bridge.ts), for clients that start
 * a command. `browserdeck mcp install --target claude|cursor|vscode|goose`: writes that client's
 * config so it starts `browserdeck mcp` (mcp-targets.ts).
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { contextOf } from '../command-context.js';
import { bridgeCommand, defaultConfigPath, TARGETS, type Target } from '../mcp-targets.js';
import { loginFilePath, readLoginFile } from '../login-file.js';

const NEXT_STEP: Record<Target, string> = {
  claude: 'restart Claude Desktop',
  cursor: 'reload Cursor',
  vscode: 'run "MCP: List Servers" in VS Code and start it',
  goose: 'start a new Goose session',
};

export function registerMcp(program: Command): void {
  const mcp = program
    .command('mcp')
    .description("serve the engine's MCP tools over stdio (bridges to <url>/mcp with the API key)")
    .action(async (_f: unknown, cmd: Command) => {
      // Resolved before anything is read from stdin: no key is a one-line error at once.
      const connection = contextOf(cmd).connection();
      // The MCP SDK loads only for the commands that use it (it is the slowest import of the CLI).
      const { runMcpBridge } = await import('../mcp-bridge.js');
      await runMcpBridge(connection);
    });

  mcp
    .command('install')
    .description("add `browserdeck mcp` to an MCP client's config")
    .addOption(new Option('--target <client>', 'the MCP client').choices(TARGETS).makeOptionMandatory())
    .option('--config-path <file>', "the client's config file (default: where the client keeps it)")
    .option('--name <name>', 'the server name in that config', 'browserdeck')
    .action(async (f: { target: Target; configPath?: string; name: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const { installServer } = await import('../mcp-install.js');
      const url = ctx.url();
      const file = f.configPath ?? defaultConfigPath(f.target);
      const entry = installServer(f.target, file, f.name, bridgeCommand({ BROWSERDECK_URL: url }));
      ctx.out.result({ target: f.target, config_path: file, name: f.name, entry }, () =>
        process.stdout.write(`added '${f.name}' (${url}) to ${file}: ${NEXT_STEP[f.target]}\n`),
      );
      // The key is not written into the client's config: the bridge finds it in the login file.
      if (!readLoginFile().api_key) ctx.out.note(`no API key in ${loginFilePath()}: run \`browserdeck login\` so the client's \`browserdeck mcp\` can use one`);
    });
}
