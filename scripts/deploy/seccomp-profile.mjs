#!/usr/bin/env node
/**
 * Writes deploy/kubernetes/browserdeck-seccomp.json, the seccomp profile of the user-namespaced
 * manifest (browserdeck-userns.yaml), from containers-common's default profile — podman's, the
 * one under which the image's jail and Chromium's sandbox run in this project's tests.
 *
 * The output is in the OCI runtime-spec format (`defaultAction`, `architectures`, `syscalls` of
 * `names`/`action`/`errnoRet`/`args`): containerd reads a Kubernetes `Localhost` profile as exactly
 * that, and CRI-O reads it as well. containers-common's own format adds `archMap` and per-rule
 * `includes`/`excludes` (by capability, by architecture), which containerd would silently ignore,
 * applying every conditional rule at once. So they are resolved here for the pod the manifest
 * describes: no capability at all (it drops ALL), on x86_64 or aarch64 (with their 32-bit
 * compat architectures). One change on top: `chroot` is allowed, which containers-common allows
 * only with CAP_SYS_CHROOT — Chromium's sandbox chroots inside its own user namespace.
 *
 *   node scripts/deploy/seccomp-profile.mjs [source]   # default /usr/share/containers/seccomp.json
 *
 * Debian 12's golang-github-containers-common (0.50.1) provides the default source.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEFAULT_SOURCE = '/usr/share/containers/seccomp.json';
export const TARGET = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy/kubernetes/browserdeck-seccomp.json');
/** The main architectures the profile is for, as containers-common's archMap names them. */
const MAIN_ARCHES = ['SCMP_ARCH_X86_64', 'SCMP_ARCH_AARCH64'];
/** The same (and their compat architectures) as containers-common's `includes.arches` name them (Go's GOARCH). */
const GO_ARCHES = new Set(['amd64', 'x32', 'x86', '386', 'arm64', 'arm']);

/** Whether a containers-common rule applies to a container with no capabilities on GO_ARCHES. */
function applies(rule) {
  const inc = rule.includes ?? {};
  const exc = rule.excludes ?? {};
  if (inc.caps?.length) return false;
  if (inc.arches?.length && !inc.arches.some((a) => GO_ARCHES.has(a))) return false;
  if (exc.arches?.length && exc.arches.some((a) => GO_ARCHES.has(a))) return false;
  if (inc.minKernel) throw new Error(`a rule for ${rule.names.join(', ')} depends on the kernel version (${inc.minKernel}): decide it by hand`);
  return true;
}

/** containers-common's profile → the OCI runtime-spec profile described above. */
export function ociProfileFrom(source) {
  const architectures = source.archMap.filter((a) => MAIN_ARCHES.includes(a.architecture)).flatMap((a) => [a.architecture, ...(a.subArchitectures ?? [])]);
  const seen = new Set();
  const syscalls = [];
  for (const rule of source.syscalls.filter(applies)) {
    let names = rule.names;
    // chroot: allowed below instead of refused.
    if (rule.action !== 'SCMP_ACT_ALLOW') names = names.filter((n) => n !== 'chroot');
    if (!names.length) continue;
    const out = { names, action: rule.action };
    if (rule.errnoRet !== undefined && rule.errnoRet !== null) out.errnoRet = rule.errnoRet;
    if (rule.args?.length) out.args = rule.args.map(({ index, value, valueTwo, op }) => ({ index, value, valueTwo, op }));
    const key = JSON.stringify(out);
    if (!seen.has(key)) syscalls.push(out);
    seen.add(key);
  }
  if (!syscalls.some((r) => r.action === 'SCMP_ACT_ALLOW' && r.names.includes('chroot') && !r.args)) {
    syscalls.push({ names: ['chroot'], action: 'SCMP_ACT_ALLOW' });
  }
  return { defaultAction: source.defaultAction, defaultErrnoRet: source.defaultErrnoRet, architectures, syscalls };
}

export function render(profile) {
  return JSON.stringify(profile, null, 2) + '\n';
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const source = process.argv[2] ?? DEFAULT_SOURCE;
  fs.writeFileSync(TARGET, render(ociProfileFrom(JSON.parse(fs.readFileSync(source, 'utf8')))));
  process.stderr.write(`wrote ${path.relative(process.cwd(), TARGET)} from ${source}\n`);
}
