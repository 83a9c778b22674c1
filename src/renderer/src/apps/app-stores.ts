/**
 * Stores of the apps screens: deployments joined with the app versions they produced (a
 * deployment row carries no app name; `/apps` items name their deployment), refetched with
 * the invocations topic since deploys and invocations change together on this screen.
 */
import { api } from '../transport/api-client';
import { createListStore } from '../stores/list-store';
import type { AppVersion, Deployment } from '../../../shared/wire/apps';

export type { AppVersion, Deployment };

export interface DeploymentRow extends Deployment {
  apps: AppVersion[];
}

export const useDeployments = createListStore<DeploymentRow, Record<string, never>>({
  topic: 'invocations',
  filters: {},
  fetch: async () => {
    const [deployments, apps] = await Promise.all([api.call('GET /deployments', { query: { limit: 50 } }), api.call('GET /apps', { query: { limit: 100 } })]);
    return deployments.map((d) => ({ ...d, apps: apps.filter((a) => a.deployment === d.id) }));
  },
});

/** App versions that can be invoked (their deployment is running), for the invoke form. */
export async function invocableApps(): Promise<AppVersion[]> {
  const [apps, deployments] = await Promise.all([api.call('GET /apps', { query: { limit: 100 } }), api.call('GET /deployments', { query: { limit: 100 } })]);
  const running = new Set(deployments.filter((d) => d.status === 'running').map((d) => d.id));
  return apps.filter((a) => running.has(a.deployment));
}
