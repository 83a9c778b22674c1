/**
 * Ending a code runner's whole process group: executors and REPLs start detached (their own
 * group), so one SIGKILL (chromium/process-group.ts, as for browsers) takes the sandbox's
 * wrappers, the Node process and anything the tenant's code started. What this adds: waiting
 * until the group is really gone, zombies aside.
 */
import fs from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { isGroupAlive, killGroup } from '../chromium/process-group.js';

/** Whether a live (not zombie) process is left in the group; zombies wait for a slow host init. */
function groupAlive(pgid: number): boolean {
  if (process.platform !== 'linux') return isGroupAlive(pgid);
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[2]) === pgid && f[0] !== 'Z') return true;
    } catch {}
  }
  return false;
}

/** Kills the group and waits (bounded) until no process of it is left running. */
export async function endGroup(child: ChildProcess): Promise<void> {
  if (!child.pid) return;
  if (!killGroup(child.pid)) child.kill('SIGKILL');
  for (let i = 0; i < 200 && groupAlive(child.pid); i++) await new Promise((r) => setTimeout(r, 10));
}
