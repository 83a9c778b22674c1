/**
 * Deploy an app: upload a zip of its directory (`POST /deployments`, multipart as the official
 * client sends it) with a version, entrypoint, env vars and `force` (replace a version that
 * exists). A redeploy opens it prefilled from a deployment: the engine keeps no uploaded zip,
 * so a zip deployment is redeployed by choosing the zip again, a local one deploys its directory
 * again (`POST /deployments/local`); env var values are never served back, so they are given
 * again. On success the deployment's screen opens and follows its events.
 */
import { useEffect, useState } from 'react';
import type { Deployment } from './app-stores';
import { api } from '../transport/api-client';
import { changed } from '../stores/changes';
import { notify } from '../stores/toasts';
import { navigate } from '../router';
import { Field } from '../components/ui';
import { FormDialog } from '../components/form-dialog';

export interface DeployDefaults {
  version?: string;
  entrypoint?: string;
  /** Names of the env vars the deployment had (their values are not readable). */
  envNames?: string[];
  /** A local deployment's directory on the engine machine. */
  sourcePath?: string;
}

/** `KEY=value` lines → a map; a line without `=` is refused so a typo is not deployed silently. */
export function parseEnvLines(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (!line || line.startsWith('#')) continue;
    const i = line.indexOf('=');
    if (i <= 0) throw new Error(`env var line "${line}" must look like NAME=value`);
    env[line.slice(0, i).trim()] = line.slice(i + 1);
  }
  return env;
}

export function DeployDialog({ open, defaults, onClose }: { open: boolean; defaults?: DeployDefaults; onClose(): void }): React.JSX.Element | null {
  const [file, setFile] = useState<File | null>(null);
  const [version, setVersion] = useState('');
  const [entrypoint, setEntrypoint] = useState('');
  const [env, setEnv] = useState('');
  const [force, setForce] = useState(false);
  useEffect(() => {
    if (!open) return;
    setFile(null);
    setVersion(defaults?.version ?? '');
    setEntrypoint(defaults?.entrypoint ?? '');
    setEnv('');
    setForce(!!defaults);
  }, [open, defaults]);
  return (
    <FormDialog
      open={open}
      wide
      title={defaults ? 'Redeploy' : 'Deploy an app'}
      confirmLabel="Deploy"
      onClose={onClose}
      onSubmit={async () => {
        const vars = parseEnvLines(env);
        if (defaults?.sourcePath) {
          const d = await api.call('POST /deployments/local', {
            body: {
              source_path: defaults.sourcePath,
              force,
              env_vars: vars,
              ...(version.trim() ? { version: version.trim() } : {}),
              ...(entrypoint.trim() ? { entrypoint_rel_path: entrypoint.trim() } : {}),
            },
          });
          changed('deployments', 'invocations');
          return navigate(`/deployments/${encodeURIComponent(d.id)}`);
        }
        if (!file) throw new Error('choose the app’s .zip file first');
        const multipart = [
          { name: 'file', filename: file.name, blob: file },
          ...(version.trim() ? [{ name: 'version', value: version.trim() }] : []),
          ...(entrypoint.trim() ? [{ name: 'entrypoint_rel_path', value: entrypoint.trim() }] : []),
          ...Object.entries(vars).map(([k, v]) => ({ name: `env_vars[${k}]`, value: v })),
          ...(force ? [{ name: 'force', value: 'true' }] : []),
        ];
        const r = await api.binary('POST /deployments', { multipart });
        const d = JSON.parse(new TextDecoder().decode(r.data)) as Deployment;
        notify(`Deployment ${d.id} ${d.status}`);
        changed('deployments', 'invocations');
        navigate(`/deployments/${encodeURIComponent(d.id)}`);
      }}
    >
      {defaults?.sourcePath ? (
        <Field label="Directory" hint="On the engine machine, deployed again as it is now" wide>
          <input value={defaults.sourcePath} readOnly />
        </Field>
      ) : (
        <Field label="App zip" hint="The app directory, zipped (package.json or the entrypoint at the top)" wide>
          <input type="file" accept=".zip,application/zip" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        </Field>
      )}
      <Field label="Version" hint="Default: latest">
        <input value={version} onChange={(e) => setVersion(e.target.value)} />
      </Field>
      <Field label="Entrypoint" hint="Path in the zip, e.g. index.ts">
        <input value={entrypoint} onChange={(e) => setEntrypoint(e.target.value)} />
      </Field>
      <Field
        label="Env vars"
        hint={
          defaults?.envNames?.length
            ? `One NAME=value per line; values are never shown back, give ${defaults.envNames.join(', ')} again`
            : 'One NAME=value per line'
        }
        wide
      >
        <textarea rows={3} value={env} onChange={(e) => setEnv(e.target.value)} spellCheck={false} />
      </Field>
      <label className="check-field">
        <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} /> Replace this version if it exists (force)
      </label>
    </FormDialog>
  );
}
