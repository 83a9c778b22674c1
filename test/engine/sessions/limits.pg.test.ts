/**
 * Concurrency limits under races: parallel creates against a small org cap and against a
 * project cap — exactly the cap succeeds, the rest get 429 with a code and Retry-After — and a
 * freed slot can be taken again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { processesWith, sessionDirsLeft } from '../../helpers/chromium-web.js';

let te: TestEngine;

beforeAll(async () => {
  te = await startTestEngine({ maxConcurrentSessions: 2 });
});

afterAll(async () => {
  await te.stop();
  expect(processesWith(te.dataDir)).toEqual([]);
  expect(sessionDirsLeft(te.dataDir)).toEqual([]);
});

async function createMany(n: number, headers: Record<string, string> = {}) {
  return Promise.all(Array.from({ length: n }, () => te.api('/browsers', { method: 'POST', json: { headless: true }, headers })));
}

async function cleanup(responses: Response[]) {
  for (const r of responses) if (r.status === 200) await te.client.browsers.deleteByID((await r.json()).session_id);
}

describe('concurrency limits', () => {
  it('never lets parallel creates exceed the organization cap', async () => {
    const responses = await createMany(5);
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(2);
    expect(limited).toHaveLength(3);
    for (const r of limited) {
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await r.json()).code).toBe('concurrency_limit_exceeded');
    }
    const active = await te.client.browsers.list();
    expect(active.getPaginatedItems()).toHaveLength(2);
    // Freeing one slot lets exactly one more in.
    const first = await ok[0].json();
    await te.client.browsers.deleteByID(first.session_id);
    const again = await createMany(2);
    expect(again.map((r) => r.status).sort()).toEqual([200, 429]);
    await cleanup([ok[1], ...again]);
  });

  it('enforces a project cap (explicit, else the org default) atomically', async () => {
    const project = await te.client.projects.create({ name: 'capped' });
    const headers = { 'x-kernel-project-id': project.id };
    const patch = await te.api(`/org/projects/${project.id}/limits`, { method: 'PATCH', json: { max_concurrent_sessions: 1 } });
    expect(patch.status).toBe(200);
    const responses = await createMany(3, headers);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 429, 429]);
    const limited = responses.find((r) => r.status === 429)!;
    expect((await limited.json()).code).toBe('project_concurrency_limit_exceeded');
    expect(limited.headers.get('retry-after')).toBeTruthy();
    // The default project is not affected by that project's cap.
    const other = await createMany(1);
    expect(other[0].status).toBe(200);
    await cleanup([...responses, ...other].filter((r) => r.status === 200).slice(1));
    const kept = await responses.find((r) => r.status === 200)!.json();
    await te.clientWith({ projectID: project.id }).browsers.deleteByID(kept.session_id);

    // Remove the override; the org default now applies to the project.
    await te.api(`/org/projects/${project.id}/limits`, { method: 'PATCH', json: { max_concurrent_sessions: 0 } });
    const orgPatch = await te.api('/org/limits', { method: 'PATCH', json: { default_project_max_concurrent_sessions: 1 } });
    expect(orgPatch.status).toBe(200);
    const byDefault = await createMany(2, headers);
    expect(byDefault.map((r) => r.status).sort()).toEqual([200, 429]);
    const s = await byDefault.find((r) => r.status === 200)!.json();
    await te.clientWith({ projectID: project.id }).browsers.deleteByID(s.session_id);
    await te.api('/org/limits', { method: 'PATCH', json: { default_project_max_concurrent_sessions: 0 } });
  });
});
