/**
 * Project limit overrides, organization limits, the limits service other features use, and
 * the deprecated `PATCH /projects/{id}/limits` on both sides of its sunset (injected clock).
 *
 * @database limit overrides and counts are queries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { expectApiError, expectErrorResponse, manualClock } from './org-fixtures.js';

const ORG_CAP = 12;
const clock = manualClock('2026-11-23T23:59:59.000Z');
let t: TestEngine;
let projectId: string;
beforeAll(async () => {
  t = await startTestEngine({ clock, maxConcurrentSessions: ORG_CAP });
  projectId = (await t.client.projects.create({ name: 'Limited' })).id;
});
afterAll(() => t?.stop());

const NONE = { max_concurrent_sessions: null, max_concurrent_invocations: null, max_pooled_sessions: null };

describe('project limits', () => {
  it('starts without overrides and changes only the fields present', async () => {
    expect(await t.client.projects.limits.retrieve(projectId)).toEqual(NONE);
    expect(await t.client.projects.limits.update(projectId, { max_concurrent_sessions: 5 })).toEqual({ ...NONE, max_concurrent_sessions: 5 });
    expect(await t.client.projects.limits.update('limited', { max_concurrent_invocations: 2, max_pooled_sessions: 3 })).toEqual({
      max_concurrent_sessions: 5,
      max_concurrent_invocations: 2,
      max_pooled_sessions: 3,
    });
    expect(await t.client.projects.limits.update(projectId, {})).toEqual({ max_concurrent_sessions: 5, max_concurrent_invocations: 2, max_pooled_sessions: 3 });
    const empty = await t.api(`/org/projects/${projectId}/limits`, { method: 'PATCH', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(200);
    // 0 and null both remove a cap.
    expect(await t.client.projects.limits.update(projectId, { max_concurrent_sessions: 0, max_pooled_sessions: null })).toEqual({
      ...NONE,
      max_concurrent_invocations: 2,
    });
    expect(await t.client.projects.limits.retrieve('LIMITED')).toEqual({ ...NONE, max_concurrent_invocations: 2 });
  });

  it('rejects negative, fractional and textual fields, and unknown projects', async () => {
    for (const body of [
      { max_concurrent_sessions: -1 },
      { max_concurrent_invocations: 1.5 },
      { max_pooled_sessions: '3' },
      { max_concurrent_sessions: 2 ** 31 },
      { max_sessions: 1, max_concurrent_sessions: -1 }, // an unknown field is ignored, a wrong known one is not
      [1],
    ]) {
      const err = await expectErrorResponse(await t.api(`/org/projects/${projectId}/limits`, { method: 'PATCH', json: body }), 400);
      expect(err.details).toHaveLength(1);
    }
    const two = await expectErrorResponse(
      await t.api(`/org/projects/${projectId}/limits`, { method: 'PATCH', json: { max_concurrent_sessions: -1, max_concurrent_invocations: 'x' } }),
      400,
    );
    expect(two.details).toHaveLength(2);
    await expectApiError(t.client.projects.limits.retrieve('no-such-project'), 404);
    await expectApiError(t.client.projects.limits.update('no-such-project', { max_concurrent_sessions: 1 }), 404);
  });
});

describe('organization limits', () => {
  it('reports the configured organization cap and no default at first', async () => {
    expect(await t.client.organization.limits.retrieve()).toMatchObject({ max_concurrent_sessions: ORG_CAP, default_project_max_concurrent_sessions: null });
  });

  it('sets, keeps, and removes the default per-project cap', async () => {
    expect(await t.client.organization.limits.update({ default_project_max_concurrent_sessions: 4 })).toMatchObject({
      max_concurrent_sessions: ORG_CAP,
      default_project_max_concurrent_sessions: 4,
    });
    expect(await t.client.organization.limits.update({})).toMatchObject({ default_project_max_concurrent_sessions: 4 });
    const empty = await t.api('/org/limits', { method: 'PATCH', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(200);
    expect(await empty.json()).toMatchObject({ default_project_max_concurrent_sessions: 4 });
    expect(await t.client.organization.limits.update({ default_project_max_concurrent_sessions: ORG_CAP })).toMatchObject({
      default_project_max_concurrent_sessions: ORG_CAP,
    });
    expect(await t.client.organization.limits.update({ default_project_max_concurrent_sessions: 0 })).toMatchObject({
      default_project_max_concurrent_sessions: null,
    });
    await t.client.organization.limits.update({ default_project_max_concurrent_sessions: 3 });
    expect(await t.client.organization.limits.update({ default_project_max_concurrent_sessions: null })).toMatchObject({
      default_project_max_concurrent_sessions: null,
    });
  });

  it('refuses a default above the organization cap with a clear message, and bad types', async () => {
    const err = await expectApiError(
      t.client.organization.limits.update({ default_project_max_concurrent_sessions: ORG_CAP + 1 }),
      400,
      /must not exceed.*max_concurrent_sessions \(12\)/,
    );
    expect(err.details).toHaveLength(1);
    for (const body of [
      { default_project_max_concurrent_sessions: -1 },
      { default_project_max_concurrent_sessions: '3' },
      { default_project_max_concurrent_sessions: 2.5 },
    ]) {
      await expectErrorResponse(await t.api('/org/limits', { method: 'PATCH', json: body }), 400);
    }
    // The operator's cap is no field of the PATCH body: like any unknown field it is ignored, never applied.
    expect((await t.api('/org/limits', { method: 'PATCH', json: { max_concurrent_sessions: 100 } })).status).toBe(200);
    expect((await t.client.organization.limits.retrieve()).max_concurrent_sessions).toBe(ORG_CAP);
    expect((await t.client.organization.limits.retrieve()).default_project_max_concurrent_sessions).toBeNull();
  });
});

describe('limits service (services.limits)', () => {
  it('resolves a project session cap: override, else org default, else none', async () => {
    const limits = t.engine.services.limits;
    expect(limits.orgMaxConcurrentSessions()).toBe(ORG_CAP);
    const p = (await t.client.projects.create({ name: 'cap-resolution' })).id;
    const orgId = t.engine.context.orgId;
    expect(await limits.projectSessionCap(orgId, p)).toBeNull();
    await t.client.organization.limits.update({ default_project_max_concurrent_sessions: 4 });
    expect(await limits.projectSessionCap(orgId, p)).toBe(4);
    await t.client.projects.limits.update(p, { max_concurrent_sessions: 2, max_concurrent_invocations: 7 });
    expect(await limits.projectSessionCap(orgId, p)).toBe(2);
    expect(await limits.projectInvocationCap(orgId, p)).toBe(7);
    await t.client.projects.limits.update(p, { max_concurrent_sessions: 0 });
    expect(await limits.projectSessionCap(orgId, p)).toBe(4);
    await t.client.organization.limits.update({ default_project_max_concurrent_sessions: 0 });
    expect(await limits.projectSessionCap(orgId, p)).toBeNull();
    // Another organization's project id resolves to nothing.
    expect(await limits.projectSessionCap('another-org', p)).toBeNull();
  });
});

describe('deprecated PATCH /projects/{id}/limits', () => {
  it('works like the new route and announces its sunset until 2026-11-24T00:00:00Z', async () => {
    clock.set('2026-11-23T23:59:59.999Z');
    const res = await t.api(`/projects/${projectId}/limits`, { method: 'PATCH', json: { max_concurrent_sessions: 9 } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ max_concurrent_sessions: 9 });
    expect(res.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(res.headers.get('sunset')).toBe('Tue, 24 Nov 2026 00:00:00 GMT');
    expect(res.headers.get('link')).toBe(`</org/projects/${projectId}/limits>; rel="successor-version"`);
    expect((await t.client.projects.limits.retrieve(projectId)).max_concurrent_sessions).toBe(9);
    // Same validation as the new route, still with the deprecation headers.
    const bad = await t.api(`/projects/${projectId}/limits`, { method: 'PATCH', json: { max_concurrent_sessions: -5 } });
    await expectErrorResponse(bad, 400);
    expect(bad.headers.get('sunset')).toBe('Tue, 24 Nov 2026 00:00:00 GMT');
    await expectErrorResponse(await t.api('/projects/nope/limits', { method: 'PATCH', json: {} }), 404);
    // The new route carries no deprecation notice.
    const fresh = await t.api(`/org/projects/${projectId}/limits`, { method: 'PATCH', json: {} });
    expect(fresh.headers.get('deprecation')).toBeNull();
  });

  it('answers 410 Gone naming the new route from the sunset on, whatever the body', async () => {
    clock.set('2026-11-24T00:00:00.000Z');
    for (const body of [{ max_concurrent_sessions: 1 }, { max_concurrent_sessions: -1 }]) {
      const res = await t.api(`/projects/${projectId}/limits`, { method: 'PATCH', json: body });
      const err = await expectErrorResponse(res, 410);
      expect(err.code).toBe('gone');
      expect(err.message).toContain('/org/projects/{id}/limits');
      expect(res.headers.get('deprecation')).toBeNull();
    }
    expect((await t.client.projects.limits.retrieve(projectId)).max_concurrent_sessions).toBe(9);
    // Auth still comes first: no key, no information.
    const anon = await fetch(`${t.url}/projects/${projectId}/limits`, { method: 'PATCH' });
    expect(anon.status).toBe(401);
  });
});
