/**
 * Every manifest in deploy/kubernetes/ against the Kubernetes schemas, offline
 * (kubernetes-schema.ts), and what the docs promise of each: the user-namespaced variant's
 * security settings and seccomp profile, probes and resources on every workload, Services and
 * the PodDisruptionBudget selecting real pods, and the PostgreSQL StatefulSet running the very
 * container that cluster.yaml runs under podman kube play. No podman, no cluster: this runs
 * everywhere, including where the container tests are skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readManifest, schemaProblems, type ManifestDoc } from './kubernetes-schema.js';
import { root } from './podman.js';

const dir = path.join(root, 'deploy/kubernetes');
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const manifest = (name: string) => readManifest(path.join(dir, name));
const one = (docs: ManifestDoc[], kind: string, name: string) => {
  const found = docs.filter((d) => d.kind === kind && d.name === name);
  expect(found, `${kind} ${name}`).toHaveLength(1);
  return found[0].body;
};
const workloads = (docs: ManifestDoc[]) => docs.filter((d) => d.kind === 'apps/v1 Deployment' || d.kind === 'apps/v1 StatefulSet');
const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) => Object.entries(selector).every(([k, v]) => labels[k] === v);

describe('the Kubernetes manifests', () => {
  it('are the files the docs name', () => {
    expect(files).toEqual(['browserdeck-userns.yaml', 'browserdeck.yaml', 'cluster.yaml', 'postgres-statefulset.yaml']);
  });

  it('pass the Kubernetes schemas, with no unknown field', () => {
    // One TypeScript program for all of them (a few seconds each way).
    expect(schemaProblems(files.flatMap(manifest))).toEqual([]);
  });

  it('the check finds a misspelt field, a wrong enum value and a wrong type', () => {
    const spoilt = (change: (securityContext: Record<string, unknown>) => void) => {
      const docs = structuredClone(manifest('browserdeck-userns.yaml'));
      change(docs.find((d) => d.kind === 'apps/v1 Deployment')!.body.spec.template.spec.containers[0].securityContext);
      return docs;
    };
    const problems = schemaProblems([
      ...spoilt((sc) => {
        sc.procMnt = sc.procMount;
        delete sc.procMount;
      }),
      ...spoilt((sc) => (sc.procMount = 'Open')),
      ...spoilt((sc) => (sc.runAsUser = '1000')),
    ]);
    expect(problems.find((p) => /procMnt/.test(p))).toMatch(/#1 apps\/v1 Deployment browserdeck: .*'"procMnt"' does not exist/);
    expect(problems.find((p) => /procMount/.test(p))).toMatch(/procMount/);
    expect(problems.find((p) => /runAsUser/.test(p))).toMatch(/runAsUser/);
  });

  it.each(files)('%s: every container has readiness and liveness probes and resource requests and limits', (file) => {
    for (const w of workloads(manifest(file))) {
      for (const c of w.body.spec.template.spec.containers) {
        const where = `${file} ${w.name}/${c.name}`;
        expect(c.readinessProbe, where).toBeDefined();
        expect(c.livenessProbe, where).toBeDefined();
        if (c.name === 'engine') {
          for (const probe of [c.readinessProbe, c.livenessProbe]) expect(probe.httpGet, where).toEqual({ path: '/healthz', port: 8420 });
        }
        for (const k of ['requests', 'limits']) expect(Object.keys(c.resources?.[k] ?? {}).sort(), `${where} ${k}`).toEqual(['cpu', 'memory']);
      }
    }
  });

  it.each(files)("%s: each Service and PodDisruptionBudget selects a workload's pods", (file) => {
    const docs = manifest(file);
    const podLabels = workloads(docs).map((w) => w.body.spec.template.metadata.labels);
    for (const d of docs.filter((x) => x.kind === 'v1 Service' || x.kind === 'policy/v1 PodDisruptionBudget')) {
      const selector = d.kind === 'v1 Service' ? d.body.spec.selector : d.body.spec.selector.matchLabels;
      expect(
        podLabels.some((l) => matches(selector, l)),
        `${file} ${d.kind} ${d.name}`,
      ).toBe(true);
    }
  });

  it('browserdeck-userns.yaml: own user namespace, uid 1000, no capability, no privilege escalation, /proc unmasked, the seccomp profile beside it', () => {
    const pod = one(manifest('browserdeck-userns.yaml'), 'apps/v1 Deployment', 'browserdeck').spec.template.spec;
    expect(pod.hostUsers).toBe(false);
    const sc = pod.containers[0].securityContext;
    expect(sc).toEqual({
      runAsUser: 1000,
      runAsGroup: 1000,
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      procMount: 'Unmasked',
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'Localhost', localhostProfile: 'browserdeck-seccomp.json' },
    });
    expect(fs.existsSync(path.join(dir, sc.seccompProfile.localhostProfile))).toBe(true);
  });

  it('cluster.yaml: a PodDisruptionBudget over the engine replicas, which reach PostgreSQL by a name both database files define', () => {
    const cluster = manifest('cluster.yaml');
    const engines = one(cluster, 'apps/v1 Deployment', 'browserdeck');
    expect(engines.spec.replicas).toBeGreaterThan(1);
    const pdb = one(cluster, 'policy/v1 PodDisruptionBudget', 'browserdeck');
    expect(matches(pdb.spec.selector.matchLabels, engines.spec.template.metadata.labels)).toBe(true);
    const env = Object.fromEntries(engines.spec.template.spec.containers[0].env.map((e: { name: string; value: string }) => [e.name, e.value]));
    const dbHost = new URL(env.BROWSERDECK_DATABASE_URL).hostname;
    expect(one(cluster, 'v1 Service', dbHost)).toBeDefined();
    expect(one(manifest('postgres-statefulset.yaml'), 'v1 Service', dbHost)).toBeDefined();
  });

  it("postgres-statefulset.yaml runs cluster.yaml's PostgreSQL container, its claim from a template, under a headless governing Service", () => {
    const sts = manifest('postgres-statefulset.yaml');
    const set = one(sts, 'apps/v1 StatefulSet', 'browserdeck-postgres');
    const deployment = one(manifest('cluster.yaml'), 'apps/v1 Deployment', 'browserdeck-postgres');
    expect(set.spec.template.spec.containers).toEqual(deployment.spec.template.spec.containers);
    expect(set.spec.template.spec.securityContext).toEqual(deployment.spec.template.spec.securityContext);
    expect(set.spec.replicas).toBe(1);
    expect(one(sts, 'v1 Service', set.spec.serviceName).spec.clusterIP).toBe('None');
    const mount = set.spec.template.spec.containers[0].volumeMounts[0];
    expect(set.spec.volumeClaimTemplates.map((t: { metadata: { name: string } }) => t.metadata.name)).toEqual([mount.name]);
  });

  it('every object of cluster.yaml and postgres-statefulset.yaml names its component (kubectl apply -l takes the engine part)', () => {
    for (const d of [...manifest('cluster.yaml'), ...manifest('postgres-statefulset.yaml')]) {
      expect(['engine', 'database'], `${d.kind} ${d.name}`).toContain(d.body.metadata.labels?.['app.kubernetes.io/component']);
    }
    const engineApp = new Set(
      manifest('cluster.yaml')
        .filter((d) => d.body.metadata.labels['app.kubernetes.io/component'] === 'engine')
        .map((d) => d.kind),
    );
    expect([...engineApp].sort()).toEqual(['apps/v1 Deployment', 'policy/v1 PodDisruptionBudget', 'v1 Service']);
  });
});
