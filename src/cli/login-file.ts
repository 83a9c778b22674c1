/**
 * Where `browserdeck login` keeps the engine URL and API key: `config.json` in the user's config
 * dir ($XDG_CONFIG_HOME/browserdeck, else ~/.config/browserdeck; %APPDATA%\browserdeck on
 * Windows), mode 0600 in a 0700 dir, because the key is as good as a password.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface LoginFile {
  url?: string;
  api_key?: string;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_CONFIG_HOME) return path.join(env.XDG_CONFIG_HOME, 'browserdeck');
  if (process.platform === 'win32' && env.APPDATA) return path.join(env.APPDATA, 'browserdeck');
  return path.join(os.homedir(), '.config', 'browserdeck');
}

export const loginFilePath = (env: NodeJS.ProcessEnv = process.env) => path.join(configDir(env), 'config.json');

/** The stored login, or {} when there is none (a broken file counts as none: `login` rewrites it). */
export function readLoginFile(file = loginFilePath()): LoginFile {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    if (!parsed || typeof parsed !== 'object') return {};
    const { url, api_key } = parsed as Record<string, unknown>;
    return { url: typeof url === 'string' ? url : undefined, api_key: typeof api_key === 'string' ? api_key : undefined };
  } catch {
    return {};
  }
}

export function writeLoginFile(login: LoginFile, file = loginFilePath()): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Written to a temp file created 0600 and renamed: the key never sits in a readable file,
  // not even for the moment between write and chmod.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(login, null, 2) + '\n', { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}
