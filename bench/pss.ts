/**
 * Proportional set size (PSS) of whole process trees, from /proc/<pid>/smaps_rollup: each shared
 * page is split among the processes mapping it, so summing PSS over N sessions' processes gives
 * what they cost together (summing RSS would count Chromium's shared binary N times). A jailed
 * session's processes live in their own pid namespace and session under bwrap, so the tree is
 * followed from the bwrap pid the engine started, not by process group.
 */
import fs from 'node:fs';

function childrenMap(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(e)]);
    } catch {
      /* process went away */
    }
  }
  return children;
}

/** What a process is, for the breakdown: bwrap, the jail helper, Chromium's browser or its --type. */
export function processKind(pid: number): string {
  let argv: string[];
  try {
    // Chromium's children rewrite their title: one string, arguments separated by spaces.
    argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
  } catch {
    return 'gone';
  }
  const exe = argv[0]?.split('/').pop() ?? '';
  if (exe === 'bwrap') return 'bwrap';
  if (argv.some((a) => a.endsWith('jail-helper.mjs'))) return 'jail helper (node)';
  if (exe === 'sh') return 'sh';
  const type = argv.find((a) => a.startsWith('--type='))?.slice(7);
  if (!type) return /^(chromium|chrome)$/.test(exe) ? 'chromium browser' : exe;
  if (type === 'utility')
    return `utility ${
      argv
        .find((a) => a.startsWith('--utility-sub-type='))
        ?.split('=')[1]
        ?.split('.')[0] ?? ''
    }`.trim();
  return type;
}

function pssKb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

export interface TreePss {
  totalKb: number;
  /** PSS and process count by kind. */
  byKind: Map<string, { kb: number; n: number }>;
}

/** PSS of every process under (and including) each root, together and by kind. */
export function pssOfTrees(roots: Iterable<number>): TreePss {
  const children = childrenMap();
  const byKind = new Map<string, { kb: number; n: number }>();
  let totalKb = 0;
  const todo = [...roots];
  while (todo.length) {
    const pid = todo.pop()!;
    todo.push(...(children.get(pid) ?? []));
    const kb = pssKb(pid);
    totalKb += kb;
    const k = processKind(pid);
    const e = byKind.get(k) ?? { kb: 0, n: 0 };
    e.kb += kb;
    e.n += 1;
    byKind.set(k, e);
  }
  return { totalKb, byKind };
}

/**
 * The outermost bwrap of each jail the engine with data dir `dataDir` started: its command line
 * names the session's directory (the engine's recovery relies on that too), and its parent is
 * not itself such a bwrap (bwrap forks once more inside the new pid namespace).
 */
export function jailRoots(dataDir: string): number[] {
  const mine = new Map<number, number>();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
      if (argv[0]?.split('/').pop() !== 'bwrap' || !argv.some((a) => a.startsWith(dataDir))) continue;
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      mine.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* process went away */
    }
  }
  return [...mine.entries()].filter(([, ppid]) => !mine.has(ppid)).map(([pid]) => pid);
}
