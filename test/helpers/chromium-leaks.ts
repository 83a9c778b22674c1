/**
 * Suite-wide leak check (run from the global setup's teardown): no Chromium or Xvfb started
 * for a test engine (data dirs named `bd-test-*`) may outlive the run. A browser still under a
 * live Node process belongs to an engine that is running (e.g. another run on a shared
 * machine) and is left alone; one whose ancestry lost its engine is a leak: it is killed so it
 * does not burden the machine, and the run fails naming it.
 */
import fs from 'node:fs';

function commandLine(pid: string): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

function parentOf(pid: string): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
  } catch {
    return undefined;
  }
}

/** Whether the nearest ancestor that is not a browser/X process is a live Node process (an engine). */
function ownedByLiveEngine(pid: string): boolean {
  let p = parentOf(pid);
  for (let depth = 0; p && p !== '0' && p !== '1' && depth < 20; depth++) {
    const cmd = commandLine(p);
    if (/(^|\/)node(\s|$)/.test(cmd.split(' ')[0] ?? '')) return true;
    if (!/(chrom|Xvfb|msedge)/i.test(cmd)) return false;
    p = parentOf(p);
  }
  return false;
}

export function leftoverTestBrowsers(): Array<{ pid: number; cmd: string }> {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const out: Array<{ pid: number; cmd: string }> = [];
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const cmd = commandLine(e);
    if (/\/bd-test-/.test(cmd) && /(chrom|Xvfb|msedge)/i.test(cmd) && !ownedByLiveEngine(e)) out.push({ pid: Number(e), cmd: cmd.slice(0, 200) });
  }
  return out;
}

export function assertNoLeftoverChromium(): void {
  const left = leftoverTestBrowsers();
  if (left.length === 0) return;
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
  }
  // Vitest only logs an error thrown at teardown; the exit code is what fails CI.
  process.exitCode = 1;
  throw new Error(`${left.length} browser process(es) from test engines outlived the suite:\n${left.map((p) => `  ${p.pid} ${p.cmd}`).join('\n')}`);
}
