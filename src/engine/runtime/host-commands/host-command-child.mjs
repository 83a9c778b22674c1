/**
 * Runs the engine's short per-session host commands (cp, mount, umount) for it: the fork of each is
 * this small process's, not the engine's. Forking the engine copies the page tables of its whole
 * heap, some 20–30 ms of its event loop per command (host-commands.ts). It takes
 * `{ id, file, args, timeoutMs }` over the IPC channel and answers `{ id, error?, stdout, stderr }`;
 * it exits when the channel closes (the engine stopped or died), so it never outlives the engine.
 */
import { execFile } from 'node:child_process';

process.on('message', (m) => {
  execFile(m.file, m.args, { timeout: m.timeoutMs, maxBuffer: 1 << 20, encoding: 'utf8' }, (err, stdout, stderr) => {
    if (!process.connected) return;
    const error = err ? { message: err.message, code: typeof err.code === 'number' ? err.code : undefined, signal: err.signal ?? undefined } : undefined;
    process.send({ id: m.id, error, stdout: String(stdout), stderr: String(stderr) });
  });
});
process.on('disconnect', () => process.exit(0));
