/**
 * Where each MCP client keeps its server list, and the entry `browserdeck mcp install` writes
 * there. Every target runs `browserdeck mcp` over stdio (node and this checkout's bin by absolute
 * path, since desktop apps often start without the shell's PATH); the engine URL goes into the
 * entry's environment, the API key does not: `browserdeck mcp` reads it from the login file.
 *
 * - claude: Claude Desktop, claude_desktop_config.json, `mcpServers.<name> = {command, args, env}`
 * - cursor: ~/.cursor/mcp.json, `mcpServers.<name> = {command, args, env}`
 * - vscode: the user profile's mcp.json, `servers.<name> = {type: "stdio", command, args, env}`
 * - goose:  ~/.config/goose/config.yaml, `extensions.<name> = {type: stdio, cmd, args, envs, …}`
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const TARGETS = ['claude', 'cursor', 'vscode', 'goose'] as const;
export type Target = (typeof TARGETS)[number];

export interface ServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** `node <checkout>/bin/browserdeck.mjs mcp`, as absolute paths. */
export function bridgeCommand(env: Record<string, string>): ServerCommand {
  const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/browserdeck.mjs');
  return { command: process.execPath, args: [bin, 'mcp'], env };
}

/** The client's own config file on this platform. */
export function defaultConfigPath(target: Target, env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = os.homedir();
  const appData = env.APPDATA ?? path.join(home, 'AppData', 'Roaming');
  const xdg = env.XDG_CONFIG_HOME ?? path.join(home, '.config');
  switch (target) {
    case 'claude':
      if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
      if (platform === 'win32') return path.join(appData, 'Claude', 'claude_desktop_config.json');
      return path.join(xdg, 'Claude', 'claude_desktop_config.json');
    case 'cursor':
      return path.join(home, '.cursor', 'mcp.json');
    case 'vscode':
      if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Code', 'User', 'mcp.json');
      if (platform === 'win32') return path.join(appData, 'Code', 'User', 'mcp.json');
      return path.join(xdg, 'Code', 'User', 'mcp.json');
    case 'goose':
      if (platform === 'win32') return path.join(appData, 'Block', 'goose', 'config', 'config.yaml');
      return path.join(xdg, 'goose', 'config.yaml');
  }
}

/** The key the entry goes under in the file, and the entry itself. */
export function entryFor(target: Target, name: string, c: ServerCommand): { section: string; entry: Record<string, unknown> } {
  switch (target) {
    case 'claude':
    case 'cursor':
      return { section: 'mcpServers', entry: { command: c.command, args: c.args, env: c.env } };
    case 'vscode':
      return { section: 'servers', entry: { type: 'stdio', command: c.command, args: c.args, env: c.env } };
    case 'goose':
      return {
        section: 'extensions',
        entry: { name, display_name: 'Browserdeck', type: 'stdio', enabled: true, cmd: c.command, args: c.args, envs: c.env, env_keys: [], timeout: 300 },
      };
  }
}
