/**
 * Checks Kubernetes manifests offline against the API's own schemas, twice over:
 *
 * - `kubernetes-models` (the Kubernetes OpenAPI schemas compiled to validators): types, enums,
 *   required fields, formats — `procMount: Open` or `runAsUser: "1000"` fails here;
 * - its TypeScript interfaces, with each document type-checked as an object literal: the
 *   OpenAPI schemas allow unknown fields (the API server drops them with a warning), so a typo
 *   such as `procMnt: Unmasked` or a field at the wrong level passes the first check and would
 *   silently do nothing on a cluster. TypeScript's excess-property check catches it.
 *
 * Nothing is downloaded: both come from the npm package.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { root } from './podman.js';

/** The kinds deploy/kubernetes/ uses: validator class, and the module and interface of its type. */
const KINDS: Record<string, { model: new (data: never) => { validate(): void }; module: string; type: string }> = {
  'apps/v1 Deployment': { model: Deployment, module: 'kubernetes-models/apps/v1/Deployment', type: 'IDeployment' },
  'apps/v1 StatefulSet': { model: StatefulSet, module: 'kubernetes-models/apps/v1/StatefulSet', type: 'IStatefulSet' },
  'v1 PersistentVolumeClaim': { model: PersistentVolumeClaim, module: 'kubernetes-models/v1/PersistentVolumeClaim', type: 'IPersistentVolumeClaim' },
  'v1 Service': { model: Service, module: 'kubernetes-models/v1/Service', type: 'IService' },
  'policy/v1 PodDisruptionBudget': { model: PodDisruptionBudget, module: 'kubernetes-models/policy/v1/PodDisruptionBudget', type: 'IPodDisruptionBudget' },
};

export interface ManifestDoc {
  file: string;
  index: number;
  kind: string;
  name: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed YAML document, read by the checks
  body: any;
}

export function readManifest(file: string): ManifestDoc[] {
  const docs = parseAllDocuments(fs.readFileSync(file, 'utf8'));
  return docs.map((d, index) => {
    if (d.errors.length) throw new Error(`${file} document ${index}: ${d.errors[0].message}`);
    const body = d.toJS();
    return { file, index, kind: `${body?.apiVersion} ${body?.kind}`, name: body?.metadata?.name, body };
  });
}

function label(d: ManifestDoc): string {
  return `${path.relative(root, d.file)} #${d.index} ${d.kind} ${d.name}`;
}

/** Every problem found in the documents, as `file #index kind name: message` lines; empty when all pass. */
export function schemaProblems(docs: ManifestDoc[]): string[] {
  const problems: string[] = [];
  const sources = new Map<string, { text: string; doc: ManifestDoc }>();
  for (const d of docs) {
    const k = KINDS[d.kind];
    if (!k) {
      problems.push(`${label(d)}: no schema for this kind here (add it to KINDS in test/deploy/kubernetes-schema.ts)`);
      continue;
    }
    try {
      new k.model(d.body as never).validate();
    } catch (err) {
      problems.push(`${label(d)}: ${(err as Error).message}`);
    }
    // A virtual file beside this one, so that module resolution finds node_modules.
    const file = path.join(root, 'test/deploy', `.manifest-${sources.size}.ts`);
    sources.set(file, { text: `import type { ${k.type} } from '${k.module}';\nexport const doc: ${k.type} = ${JSON.stringify(d.body, null, 1)};\n`, doc: d });
  }
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  };
  const host = ts.createCompilerHost(options);
  const { readFile, fileExists } = host;
  host.readFile = (f) => sources.get(f)?.text ?? readFile(f);
  host.fileExists = (f) => sources.has(f) || fileExists(f);
  const program = ts.createProgram([...sources.keys()], options, host);
  for (const diag of ts.getPreEmitDiagnostics(program)) {
    const source = diag.file && sources.get(diag.file.fileName);
    const where = source ? label(source.doc) : (diag.file?.fileName ?? 'TypeScript');
    problems.push(`${where}: ${ts.flattenDiagnosticMessageText(diag.messageText, ' ')}`);
  }
  return problems;
}
