/**
 * Policy for a browser that runs WITHOUT the jail (no usable bubblewrap, or the operator chose
 * `--insecure-no-jail`): it sees the host's files, so the CDP proxy keeps its clients to the
 * session's own files by rewriting or refusing the commands that name files:
 *  - `file:` URLs (also behind `view-source:`) in `Page.navigate` / `Target.createTarget` are
 *    refused;
 *  - `downloadPath` of `Browser.setDownloadBehavior` / `Page.setDownloadBehavior` and the files
 *    of `DOM.setFileInputFiles` are session paths, mapped under the session root exactly as the
 *    jail shows them (`/tmp/downloads` is the fs API's `/tmp/downloads`).
 * This is a policy, not a wall: other ways in (BiDi, Playwright code, page scripts) are not
 * rewritten. The jail is the guarantee; docs/operate/security-model.md says so.
 */
import path from 'node:path';

export type GuardResult = { forward: string } | { reply: string } | undefined;

const METHODS = ['"Page.navigate"', '"Target.createTarget"', '"Browser.setDownloadBehavior"', '"Page.setDownloadBehavior"', '"DOM.setFileInputFiles"'];

interface Command {
  id?: number;
  method?: string;
  sessionId?: string;
  params?: Record<string, unknown>;
}

/** A session path (absolute inside the session) as a host path under `root`; `..` cannot climb out. */
export function underRoot(root: string, sessionPath: string): string {
  return path.join(root, path.posix.normalize(`/${sessionPath}`));
}

function isFileUrl(url: unknown): boolean {
  return typeof url === 'string' && /^\s*(view-source:\s*)?file:/i.test(url);
}

function refuse(cmd: Command, message: string): { reply: string } {
  return { reply: JSON.stringify({ id: cmd.id, ...(cmd.sessionId ? { sessionId: cmd.sessionId } : {}), error: { code: -32000, message } }) };
}

/** What to do with one client message to an unjailed browser: undefined = pass it on unchanged. */
export function guardUnjailedCommand(text: string, root: string): GuardResult {
  if (!METHODS.some((m) => text.includes(m))) return undefined;
  let cmd: Command;
  try {
    cmd = JSON.parse(text) as Command;
  } catch {
    return undefined;
  }
  const p = cmd.params ?? {};
  switch (cmd.method) {
    case 'Page.navigate':
    case 'Target.createTarget':
      return isFileUrl(p.url)
        ? refuse(cmd, 'file: URLs are blocked: this engine runs browsers without the jail, so file: would show the host’s files')
        : undefined;
    case 'Browser.setDownloadBehavior':
    case 'Page.setDownloadBehavior':
      if (typeof p.downloadPath !== 'string') return undefined;
      return { forward: JSON.stringify({ ...cmd, params: { ...p, downloadPath: underRoot(root, p.downloadPath) } }) };
    case 'DOM.setFileInputFiles':
      if (!Array.isArray(p.files)) return undefined;
      return { forward: JSON.stringify({ ...cmd, params: { ...p, files: p.files.map((f) => (typeof f === 'string' ? underRoot(root, f) : f)) } }) };
    default:
      return undefined;
  }
}
