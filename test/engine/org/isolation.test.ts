/**
 * Boundaries: a second organization (created in the store) and this one can neither read nor
 * change each other's projects, limits or keys; a project-scoped key sees only its project
 * and its project's keys and needs an org-wide key for administration; X-Kernel-Project-Id
 * cannot widen a scoped key.
 *
 * @database org and project boundaries are WHERE clauses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Kernel from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { createOtherOrg, expectApiError, type OtherOrg } from './org-fixtures.js';

let t: TestEngine;
let other: OtherOrg;
let mainProjectId: string;
let adminKeyId: string;
beforeAll(async () => {
  t = await startTestEngine();
  other = await createOtherOrg(t);
  mainProjectId = (await t.client.projects.list()).items[0].id;
  adminKeyId = (await t.client.apiKeys.list({ name: 'admin' })).items[0].id;
});
afterAll(() => t?.stop());

const allIds = async (pages: AsyncIterable<{ id: string }>) => {
  const ids: string[] = [];
  for await (const x of pages) ids.push(x.id);
  return ids;
};

describe('between organizations', () => {
  it('lists only the caller organization’s projects and keys', async () => {
    expect(await allIds(other.client.projects.list())).toEqual([other.projectId]);
    expect(await allIds(other.client.apiKeys.list({ status: 'all' }))).toEqual([other.keyId]);
    expect(await allIds(t.client.projects.list())).not.toContain(other.projectId);
    expect(await allIds(t.client.apiKeys.list({ status: 'all' }))).not.toContain(other.keyId);
    expect(await allIds(other.client.apiKeys.list({ query: adminKeyId }))).toEqual([]);
  });

  it('cannot read or modify the other organization’s projects or their limits (404)', async () => {
    const probes: Array<[Kernel, string]> = [
      [other.client, mainProjectId],
      [t.client, other.projectId],
      [t.client, 'other-project'],
    ];
    for (const [client, id] of probes) {
      await expectApiError(client.projects.retrieve(id), 404);
      await expectApiError(client.projects.update(id, { name: 'hijacked' }), 404);
      await expectApiError(client.projects.delete(id), 404);
      await expectApiError(client.projects.limits.retrieve(id), 404);
      await expectApiError(client.projects.limits.update(id, { max_concurrent_sessions: 1 }), 404);
      const legacy = await t.api(`/projects/${id}/limits`, {
        method: 'PATCH',
        json: { max_concurrent_sessions: 1 },
        headers: { authorization: `Bearer ${client.apiKey}` },
      });
      expect([404, 410]).toContain(legacy.status);
    }
    expect((await other.client.projects.retrieve(other.projectId)).name).toBe('other-project');
    expect((await t.client.projects.limits.retrieve(mainProjectId)).max_concurrent_sessions).toBeNull();
    expect(await other.client.projects.limits.retrieve(other.projectId)).toEqual({
      max_concurrent_sessions: null,
      max_concurrent_invocations: null,
      max_pooled_sessions: null,
    });
  });

  it('cannot read, rename, rotate or delete the other organization’s keys (404)', async () => {
    const probes: Array<[Kernel, string]> = [
      [other.client, adminKeyId],
      [t.client, other.keyId],
    ];
    for (const [client, id] of probes) {
      await expectApiError(client.apiKeys.retrieve(id, { include_deleted: true }), 404);
      await expectApiError(client.apiKeys.update(id, { name: 'hijacked' }), 404);
      await expectApiError(client.apiKeys.rotate(id, { expire_in_days: 0 }), 404);
      await expectApiError(client.apiKeys.delete(id), 404);
    }
    // Both keys are untouched and still authenticate.
    expect((await other.client.apiKeys.retrieve(other.keyId)).name).toBe('other-admin');
    expect((await t.client.apiKeys.retrieve(adminKeyId)).expires_at).toBeNull();
  });

  it('cannot scope a key or a request to the other organization’s project', async () => {
    await expectApiError(t.client.apiKeys.create({ name: 'x', project_id: other.projectId }), 404);
    await expectApiError(other.client.apiKeys.create({ name: 'x', project_id: mainProjectId }), 404);
    await expectApiError(t.clientWith({ projectID: other.projectId }).projects.list(), 404);
  });

  it('keeps organization limits separate', async () => {
    await other.client.organization.limits.update({ default_project_max_concurrent_sessions: 2 });
    expect((await t.client.organization.limits.retrieve()).default_project_max_concurrent_sessions).toBeNull();
    expect((await other.client.organization.limits.retrieve()).default_project_max_concurrent_sessions).toBe(2);
  });
});

describe('project-scoped keys', () => {
  let projectId: string;
  let scoped: Kernel;
  let scopedKeyId: string;
  let scopedKey: string;
  let siblingKeyId: string;
  beforeAll(async () => {
    projectId = (await t.client.projects.create({ name: 'Scoped Team' })).id;
    const k = await t.client.apiKeys.create({ name: 'team-key', project_id: projectId });
    scoped = t.clientWith({ apiKey: k.key });
    scopedKeyId = k.id;
    scopedKey = k.key;
    siblingKeyId = (await t.client.apiKeys.create({ name: 'team-sibling', project_id: 'scoped team' })).id;
  });

  it('sees only its own project', async () => {
    expect(await allIds(scoped.projects.list())).toEqual([projectId]);
    expect(await allIds(scoped.projects.list({ query: 'default' }))).toEqual([]);
    expect((await scoped.projects.retrieve(projectId)).name).toBe('Scoped Team');
    await expectApiError(scoped.projects.retrieve(mainProjectId), 404);
    await expectApiError(scoped.projects.retrieve('default'), 404);
    expect(await scoped.projects.limits.retrieve(projectId)).toMatchObject({ max_concurrent_sessions: null });
    await expectApiError(scoped.projects.limits.retrieve(mainProjectId), 404);
    expect((await scoped.organization.limits.retrieve()).max_concurrent_sessions).toEqual(expect.any(Number));
  });

  it('needs an org-wide key to administer projects and limits (403)', async () => {
    await expectApiError(scoped.projects.create({ name: 'sneaky' }), 403, /org-wide/);
    await expectApiError(scoped.projects.update(projectId, { name: 'renamed' }), 403);
    await expectApiError(scoped.projects.delete(projectId), 403);
    await expectApiError(scoped.projects.limits.update(projectId, { max_concurrent_sessions: 100 }), 403);
    await expectApiError(scoped.organization.limits.update({ default_project_max_concurrent_sessions: 1 }), 403);
    expect(await allIds(t.client.projects.list({ name: 'sneaky' }))).toEqual([]);
  });

  it('gets 403 from every org-wide route whatever the body: permission is checked before validation', async () => {
    const routes: Array<[string, string]> = [
      ['PATCH', '/org/limits'],
      ['POST', '/org/projects'],
      ['PATCH', `/org/projects/${projectId}`],
      ['DELETE', `/org/projects/${projectId}`],
      ['PATCH', `/org/projects/${projectId}/limits`],
      ['POST', '/org/credential_providers'],
      ['PATCH', '/org/credential_providers/cp_none'],
      ['DELETE', '/org/credential_providers/cp_none'],
      ['POST', '/deployments/local'],
    ];
    // A body of the wrong shape, unknown fields, and one that is not JSON at all.
    const bodies = [JSON.stringify({ default_project_max_concurrent_sessions: 'lots', name: 7, status: 'x', source_path: 1, bogus: true }), '{not json'];
    for (const [method, route] of routes) {
      for (const body of bodies) {
        const r = await t.api(route, { method, body, headers: { authorization: `Bearer ${scopedKey}`, 'content-type': 'application/json' } });
        expect({ method, route, body, status: r.status }).toEqual({ method, route, body, status: 403 });
        expect(await r.json()).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/org-wide/) });
      }
    }
    expect(await allIds(t.client.projects.list())).toContain(projectId);
  });

  it('manages only its own project’s keys and cannot mint org-wide or foreign keys', async () => {
    const visible = await allIds(scoped.apiKeys.list());
    expect(visible.sort()).toEqual([scopedKeyId, siblingKeyId].sort());
    await expectApiError(scoped.apiKeys.retrieve(adminKeyId), 404);
    await expectApiError(scoped.apiKeys.delete(adminKeyId), 404);
    await expectApiError(scoped.apiKeys.rotate(adminKeyId), 404);
    await expectApiError(scoped.apiKeys.update(adminKeyId, { name: 'pwned' }), 404);

    const child = await scoped.apiKeys.create({ name: 'team-child' });
    expect(child.project_id).toBe(projectId);
    await expectApiError(scoped.apiKeys.create({ name: 'org-wide', project_id: null }), 403);
    await expectApiError(scoped.apiKeys.create({ name: 'foreign', project_id: mainProjectId }), 403);

    expect((await scoped.apiKeys.update(siblingKeyId, { name: 'team-sibling-2' })).name).toBe('team-sibling-2');
    const rotated = await scoped.apiKeys.rotate(child.id, { expire_in_days: 0 });
    expect(rotated.project_id).toBe(projectId);
    await scoped.apiKeys.delete(rotated.id);
    await expectApiError(scoped.apiKeys.delete(scopedKeyId), 409);
  });

  it('cannot use X-Kernel-Project-Id to reach another project (403), but may name its own', async () => {
    const k = (await t.client.apiKeys.list({ name: 'team-key' })).items[0];
    expect(k.id).toBe(scopedKeyId);
    const key = (await t.client.apiKeys.create({ name: 'header-probe', project_id: projectId })).key;
    await expectApiError(t.clientWith({ apiKey: key, projectID: mainProjectId }).projects.list(), 403);
    await expectApiError(t.clientWith({ apiKey: key, projectID: 'default' }).apiKeys.list(), 403);
    expect(await allIds(t.clientWith({ apiKey: key, projectID: 'SCOPED TEAM' }).projects.list())).toEqual([projectId]);
    await expectApiError(t.clientWith({ apiKey: key, projectID: 'no-such-project' }).projects.list(), 404);
    // An org-wide key may address any project of its org with the header.
    expect((await t.clientWith({ projectID: projectId }).projects.list()).items.length).toBeGreaterThan(1);
  });
});

describe('credentials that are not API keys', () => {
  it('cannot administer the organization (403), even when they belong to it', async () => {
    const ctx = t.engine.context;
    // Stands in for a session token: same org, but not an API key.
    ctx.authenticators.unshift((_req, bearer) =>
      bearer === 'session-token-for-test'
        ? { orgId: ctx.orgId, strategy: 'session_jwt', userId: 'session-1', email: 'admin@browserdeck.local', projectId: null, sessionId: 'session-1' }
        : null,
    );
    const token = t.clientWith({ apiKey: 'session-token-for-test' });
    await expectApiError(token.apiKeys.list(), 403);
    await expectApiError(token.apiKeys.create({ name: 'minted' }), 403);
    await expectApiError(token.apiKeys.rotate(adminKeyId), 403);
    await expectApiError(token.projects.list(), 403);
    await expectApiError(token.projects.create({ name: 'minted' }), 403);
    await expectApiError(token.organization.limits.update({}), 403);
    await expectApiError(token.projects.limits.update(mainProjectId, {}), 403);
  });
});
