/**
 * Suite-wide leak check (run from the global setup's teardown): no Chromium or Xvfb started
 * for a test engine (data dirs named `bd-test-*`) may outlive the run. Leftovers are killed
 * so they do not burden the machine, and the run fails naming them.
 */
import fs from 'node:fs';

function commandLine(pid: string): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
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
    if (/\/bd-test-/.test(cmd) && /(chrom|Xvfb|msedge)/i.test(cmd)) out.push({ pid: Number(e), cmd: cmd.slice(0, 200) });
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
