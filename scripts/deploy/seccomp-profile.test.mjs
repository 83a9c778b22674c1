/**
 * The user-namespaced manifest's seccomp profile (deploy/kubernetes/browserdeck-seccomp.json):
 * in the OCI runtime-spec format a Kubernetes `Localhost` profile is read as (containerd parses it
 * into the runtime spec's LinuxSeccomp, ignoring what it does not know), allowing without any
 * capability what bubblewrap and Chromium's sandbox call, and — where containers-common's
 * profile is installed (podman) — exactly what `node scripts/deploy/seccomp-profile.mjs` makes of it.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SOURCE, TARGET, ociProfileFrom, render } from './seccomp-profile.mjs';

const shipped = fs.readFileSync(TARGET, 'utf8');
const profile = JSON.parse(shipped);

// The runtime spec's LinuxSeccomp (config-linux.md#seccomp) and libseccomp's names.
const PROFILE_KEYS = ['defaultAction', 'defaultErrnoRet', 'architectures', 'flags', 'listenerPath', 'listenerMetadata', 'syscalls'];
const RULE_KEYS = ['names', 'action', 'errnoRet', 'args'];
const ARG_KEYS = ['index', 'value', 'valueTwo', 'op'];
const ACTIONS = [
  'SCMP_ACT_KILL',
  'SCMP_ACT_KILL_PROCESS',
  'SCMP_ACT_KILL_THREAD',
  'SCMP_ACT_TRAP',
  'SCMP_ACT_ERRNO',
  'SCMP_ACT_TRACE',
  'SCMP_ACT_ALLOW',
  'SCMP_ACT_LOG',
  'SCMP_ACT_NOTIFY',
];
const OPS = ['SCMP_CMP_NE', 'SCMP_CMP_LT', 'SCMP_CMP_LE', 'SCMP_CMP_EQ', 'SCMP_CMP_GE', 'SCMP_CMP_GT', 'SCMP_CMP_MASKED_EQ'];

/**
 * Called by bubblewrap (namespaces, its mounts and pivot_root, dropping capabilities and setting
 * its uid/gid maps, --new-session, --die-with-parent) and by Chromium's namespace sandbox (a new
 * user namespace per process type, chroot into an empty directory, its own seccomp-bpf filter).
 * glibc 2.36 tries clone3 first. Each must be allowed for a process with no capability.
 */
const JAIL_NEEDS = [
  'clone',
  'clone3',
  'unshare',
  'mount',
  'umount2',
  'pivot_root',
  'chroot',
  'chdir',
  'capget',
  'capset',
  'prctl',
  'seccomp',
  'setresuid',
  'setresgid',
  'setgroups',
  'setsid',
];

/** Every object key is in `allowed`. */
function unknownKeys(obj, allowed) {
  return Object.keys(obj).filter((k) => !allowed.includes(k));
}

describe('the seccomp profile of browserdeck-userns.yaml', () => {
  it('is in the OCI runtime-spec format, nothing containers-common-only', () => {
    expect(unknownKeys(profile, PROFILE_KEYS)).toEqual([]);
    expect(ACTIONS).toContain(profile.defaultAction);
    expect(profile.architectures).toEqual(expect.arrayContaining(['SCMP_ARCH_X86_64', 'SCMP_ARCH_AARCH64']));
    for (const a of profile.architectures) expect(a).toMatch(/^SCMP_ARCH_[A-Z0-9_]+$/);
    for (const rule of profile.syscalls) {
      expect({ rule: rule.names, unknown: unknownKeys(rule, RULE_KEYS) }).toEqual({ rule: rule.names, unknown: [] });
      expect(rule.names.length).toBeGreaterThan(0);
      for (const n of rule.names) expect(n).toMatch(/^[a-z0-9_]+$/);
      expect(ACTIONS).toContain(rule.action);
      if (rule.errnoRet !== undefined) expect(Number.isInteger(rule.errnoRet)).toBe(true);
      for (const arg of rule.args ?? []) {
        expect(unknownKeys(arg, ARG_KEYS)).toEqual([]);
        expect(OPS).toContain(arg.op);
        expect(arg.index).toBeGreaterThanOrEqual(0);
        expect(arg.index).toBeLessThan(6);
      }
    }
  });

  it('allows, unconditionally, what bubblewrap and Chromium’s sandbox call', () => {
    const allowed = new Set(profile.syscalls.filter((r) => r.action === 'SCMP_ACT_ALLOW' && !r.args?.length).flatMap((r) => r.names));
    expect(JAIL_NEEDS.filter((n) => !allowed.has(n))).toEqual([]);
    // …and no other rule refuses them (containers-common lists setns, bpf and others both as
    // allowed and as refused without CAP_SYS_ADMIN; none of the jail's calls may be among those).
    const refused = profile.syscalls.filter((r) => r.action !== 'SCMP_ACT_ALLOW').flatMap((r) => r.names);
    expect(JAIL_NEEDS.filter((n) => refused.includes(n))).toEqual([]);
    expect(profile.defaultAction).not.toBe('SCMP_ACT_ALLOW');
  });

  it.skipIf(!fs.existsSync(DEFAULT_SOURCE))(`is what scripts/deploy/seccomp-profile.mjs makes of ${DEFAULT_SOURCE}`, () => {
    expect(render(ociProfileFrom(JSON.parse(fs.readFileSync(DEFAULT_SOURCE, 'utf8'))))).toBe(shipped);
  });

  it('resolves containers-common’s conditions for a pod with no capability', () => {
    const source = {
      defaultAction: 'SCMP_ACT_ERRNO',
      defaultErrnoRet: 38,
      archMap: [
        { architecture: 'SCMP_ARCH_X86_64', subArchitectures: ['SCMP_ARCH_X86'] },
        { architecture: 'SCMP_ARCH_S390X', subArchitectures: ['SCMP_ARCH_S390'] },
      ],
      syscalls: [
        { names: ['read', 'unshare'], action: 'SCMP_ACT_ALLOW', args: [], comment: '', includes: {}, excludes: {} },
        { names: ['bpf'], action: 'SCMP_ACT_ALLOW', includes: { caps: ['CAP_SYS_ADMIN'] } },
        { names: ['bpf'], action: 'SCMP_ACT_ERRNO', errnoRet: 1, errno: 'EPERM', excludes: { caps: ['CAP_SYS_ADMIN'] } },
        { names: ['chroot'], action: 'SCMP_ACT_ALLOW', includes: { caps: ['CAP_SYS_CHROOT'] } },
        { names: ['chroot'], action: 'SCMP_ACT_ERRNO', errnoRet: 1, excludes: { caps: ['CAP_SYS_CHROOT'] } },
        { names: ['s390_runtime_instr'], action: 'SCMP_ACT_ALLOW', includes: { arches: ['s390x'] } },
        { names: ['arch_prctl'], action: 'SCMP_ACT_ALLOW', includes: { arches: ['amd64'] } },
      ],
    };
    expect(ociProfileFrom(source)).toEqual({
      defaultAction: 'SCMP_ACT_ERRNO',
      defaultErrnoRet: 38,
      architectures: ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86'],
      syscalls: [
        { names: ['read', 'unshare'], action: 'SCMP_ACT_ALLOW' },
        { names: ['bpf'], action: 'SCMP_ACT_ERRNO', errnoRet: 1 },
        { names: ['arch_prctl'], action: 'SCMP_ACT_ALLOW' },
        { names: ['chroot'], action: 'SCMP_ACT_ALLOW' },
      ],
    });
  });
});
