/** Projects of the organization, their limits, and the mutations of the Projects screen. */
import type { Project, ProjectLimits } from '../../../shared/wire/org';
import { api } from '../transport/api-client';
import { changed } from './changes';
import { createListStore } from './list-store';

export const useProjects = createListStore<Project, { query: string }>({
  topic: 'projects',
  filters: { query: '' },
  fetch: async (f) => {
    // Projects are few; read every page so pickers and the table see them all.
    const all: Project[] = [];
    for (let offset = 0; ;) {
      const r = await api.send('GET /org/projects', { query: { offset, limit: 100, ...(f.query ? { query: f.query } : {}) } });
      all.push(...r.body);
      const next = Number(r.headers['x-next-offset'] ?? 0);
      if (r.headers['x-has-more'] !== 'true' || !next) break;
      offset = next;
    }
    return all;
  },
});

export async function createProject(name: string): Promise<Project> {
  const p = await api.call('POST /org/projects', { body: { name } });
  changed('projects');
  return p;
}

export async function updateProject(id: string, patch: { name?: string; status?: 'active' | 'archived' }): Promise<Project> {
  const p = await api.call('PATCH /org/projects/:id', { params: { id }, body: patch });
  changed('projects');
  return p;
}

export async function deleteProject(id: string): Promise<void> {
  await api.call('DELETE /org/projects/:id', { params: { id } });
  changed('projects');
}

export function getProjectLimits(id: string): Promise<ProjectLimits> {
  return api.call('GET /org/projects/:id/limits', { params: { id } });
}

export async function setProjectLimits(id: string, limits: Partial<Record<keyof ProjectLimits, number | null>>): Promise<ProjectLimits> {
  const l = await api.call('PATCH /org/projects/:id/limits', { params: { id }, body: limits });
  changed('projects');
  return l;
}
