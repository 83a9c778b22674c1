/**
 * The data dir's free-space reserve (`--disk-reserve-mb`): the engine's database, audit log and
 * its own small writes need room that no tenant may take. Below the reserve, what a tenant can
 * make large — a session (its filesystem grows into the data dir's), an upload, an extension, a
 * deployment, a profile save — is refused with 507 `insufficient_storage` before anything is
 * written, while small writes (API keys, projects, audit rows) carry on: SQLite never meets
 * ENOSPC because of a tenant. One statfs per check, no cache: it costs microseconds.
 */
import fsp from 'node:fs/promises';
import { DomainError } from '../../shared/errors/domain-error.js';

export interface DiskReserveConfig {
  dataDir: string;
  diskReserveMb: number;
}

const MIB = 1024 * 1024;

/** Bytes an unprivileged writer could still write into the data dir's filesystem. */
export async function dataDirFreeBytes(dataDir: string): Promise<number> {
  const s = await fsp.statfs(dataDir);
  return s.bavail * s.bsize;
}

/** Whether the data dir's free space is below the reserve (`/healthz` `limits.disk.low`). */
export async function diskLow(c: DiskReserveConfig): Promise<boolean> {
  if (c.diskReserveMb <= 0) return false;
  return (await dataDirFreeBytes(c.dataDir).catch(() => Infinity)) < c.diskReserveMb * MIB;
}

/**
 * Throws 507 `insufficient_storage` when the data dir's free space is below the reserve, naming
 * `what` was refused and the reserve (never a path or a byte count of the host).
 */
export async function assertDiskRoom(c: DiskReserveConfig, what: string): Promise<void> {
  if (!(await diskLow(c))) return;
  throw new DomainError(
    507,
    'insufficient_storage',
    `${what} was refused: the engine's data dir has less free space than its reserve of ${c.diskReserveMb} MiB (--disk-reserve-mb); free space or raise the disk`,
    [],
    // Only an operator can fix it: the official client would otherwise retry a 5xx at once.
    { retryable: false },
  );
}
