/**
 * `<dataDir>/engine.pid` while an engine runs on a data dir, so offline tools (restore) can
 * refuse to replace a database under a running engine. A file left by a crash names a process
 * that no longer exists, which counts as "not running".
 */
import fs from 'node:fs';
import path from 'node:path';

export const PID_FILE = 'engine.pid';

export function writePidFile(dataDir: string): () => void {
  const file = path.join(dataDir, PID_FILE);
  fs.writeFileSync(file, `${process.pid}\n`, { mode: 0o600 });
  return () => {
    try {
      if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.rmSync(file);
    } catch {
      // Already gone: nothing to release.
    }
  };
}

/** The pid of an engine running on `dataDir`, or null. */
export function runningEnginePid(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number.parseInt(fs.readFileSync(path.join(dataDir, PID_FILE), 'utf8'), 10);
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}
