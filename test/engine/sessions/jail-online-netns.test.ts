/**
 * The browser jail's online network namespace (runtime/sandbox/online-netns.ts) in the way a
 * non-root engine makes it — the desktop app and the container image run one — with a real
 * bwrap inside, as the browser jail nests it: the jail sees lo and the veth pair (so Chromium
 * takes itself for online), no IPv6 address, no route, no capability, and cannot change the
 * namespace. The root way, with a real browser: jail-escapes.test.ts. In the image:
 * test/deploy/image.test.ts.
 * As root (CI), the "engine" here is a process dropped to nobody first, so it has exactly what a
 * non-root engine has.
 */
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { findBwrap } from '../../../src/engine/runtime/sandbox/bwrap.js';
import { onlineNetnsCommand, onlineNetnsMode, onlineNetnsTools } from '../../../src/engine/runtime/sandbox/online-netns.js';

const NOBODY = 65534;
const bwrap = findBwrap();
let tools: ReturnType<typeof onlineNetnsTools>;

beforeAll(async () => {
  await onlineNetnsMode();
  tools = onlineNetnsTools();
});

/** `script` run by sh inside bwrap (`--unshare-all --share-net`, as browser-jail.ts) in a namespace made as a non-root engine makes it. */
function inUserModeJail(script: string): { status: number | null; out: string; err: string } {
  const jail = {
    file: bwrap!,
    args: ['--unshare-all', '--share-net', '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', '/bin/sh', '-c', script],
  };
  const cmd = onlineNetnsCommand('user', tools!, jail);
  const asEngine =
    process.getuid?.() === 0
      ? { file: tools!.setpriv, args: ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups', '--', cmd.file, ...cmd.args] }
      : cmd;
  const r = spawnSync(asEngine.file, asEngine.args, { encoding: 'utf8', timeout: 20_000, cwd: '/' });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

describe.skipIf(!bwrap)("a non-root engine's browser jail namespace", () => {
  it('has lo and the veth pair up, no IPv6 address but ::1 (nor one to come), no route, and the jail holds no capability', (ctx) => {
    if (!tools) return ctx.skip();
    const r = inUserModeJail(
      'ip -d -o link show; echo ---; cat /proc/net/if_inet6; echo ---; cat /proc/net/route; echo ---; grep -E "^(Uid|CapEff|CapPrm|CapAmb):" /proc/self/status',
    );
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    const [links, v6, route, status] = r.out.split('---\n');
    const up = links
      .trim()
      .split('\n')
      .map((l) => /^\d+: ([^:@]+)[:@].* state (\S+)/.exec(l)!.slice(1, 3).join(' '));
    expect(up.sort()).toEqual(['bd0 UP', 'bd1 UP', 'lo UNKNOWN']);
    // No link-local address to come either (it would arrive 1–2 s later, a network change Chromium would see).
    for (const dev of ['bd0', 'bd1']) expect(links.split('\n').find((l) => l.includes(`: ${dev}@`))).toMatch(/ addrgenmode none /);
    expect(v6.trim().split(/\s+/).at(-1)).toBe('lo');
    expect(v6.trim().split('\n')).toHaveLength(1);
    expect(route.trim().split('\n')).toHaveLength(1); // the header line: no route anywhere
    expect(status).toMatch(/^CapEff:\s+0+$/m);
    expect(status).toMatch(/^CapPrm:\s+0+$/m);
    expect(status).toMatch(/^CapAmb:\s+0+$/m);
  });

  it('cannot change the namespace: no link added, none taken down, no address, no route', (ctx) => {
    if (!tools) return ctx.skip();
    const attempts = ['link add x0 type dummy', 'link set bd0 down', 'address add 10.0.0.2/24 dev bd1', 'route add default dev bd0'];
    const r = inUserModeJail(attempts.map((a) => `ip ${a} 2>&1 && echo "CHANGED: ${a}"`).join('; ') + '; ip -o link show');
    expect(r.out).not.toContain('CHANGED');
    expect(r.out.match(/Operation not permitted/g)).toHaveLength(attempts.length);
    expect(r.out).toMatch(/bd0@bd1: <[^>]*\bUP\b/);
  });

  it("drops the capabilities `ip` needed before the jail's first program starts", (ctx) => {
    if (!tools) return ctx.skip();
    // What bwrap starts as: the jail command itself is this sh, before bwrap (which would drop them anyway).
    const cmd = onlineNetnsCommand('user', tools!, { file: '/bin/sh', args: ['-c', 'grep -E "^(CapEff|CapPrm|CapInh|CapAmb):" /proc/self/status'] });
    const asEngine =
      process.getuid?.() === 0
        ? [tools!.setpriv, '--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups', '--', cmd.file, ...cmd.args]
        : [cmd.file, ...cmd.args];
    const r = spawnSync(asEngine[0], asEngine.slice(1), { encoding: 'utf8', timeout: 20_000, cwd: '/' });
    expect(r.status).toBe(0);
    for (const set of ['CapEff', 'CapPrm', 'CapInh', 'CapAmb']) expect(r.stdout).toMatch(new RegExp(`^${set}:\\s+0+$`, 'm'));
  });
});
