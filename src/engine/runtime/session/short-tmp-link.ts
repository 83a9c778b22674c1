/**
 * Chromium puts its singleton socket in `$TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket`
 * and aborts when that exceeds the 107-byte unix socket path limit — easy to hit with a data
 * dir deep in a home or temp directory. Then the browser gets a short symlink to the session's
 * tmp dir instead (files still land in the session dir and go with it). Recovery removes the
 * links of sessions no one runs any more (domain/sessions/session-recovery.ts).
 */
import os from 'node:os';
import path from 'node:path';

export function shortTmpLink(id: string, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform === 'win32') return undefined;
  const base = os.tmpdir().length <= 48 ? os.tmpdir() : '/tmp';
  return path.join(base, `bd-s-${id.slice(0, 16)}`);
}
