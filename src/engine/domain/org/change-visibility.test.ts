/** Who sees which change on the feed (unit test beside the rule). */
import { describe, expect, it } from 'vitest';
import type { AuthContext } from './auth-context.js';
import type { OrgChange } from '../../events/resource-changes.js';
import { changeVisibleTo, requireFeedAccess } from './change-visibility.js';

const auth = (over: Partial<AuthContext>): AuthContext => ({
  orgId: 'o',
  strategy: 'api_key',
  userId: 'k',
  email: 'a@b',
  credentialProjectId: null,
  projectId: 'p1',
  ...over,
});
const inP1: OrgChange = { orgId: 'o', event: { type: 'upsert', resource: 'session', id: 's', project_id: 'p1' } };
const inP2: OrgChange = { orgId: 'o', event: { type: 'delete', resource: 'profile', id: 'f', project_id: 'p2' } };
const orgLevel: OrgChange = { orgId: 'o', event: { type: 'upsert', resource: 'api_key', id: 'k2' } };
const otherOrg: OrgChange = { orgId: 'o2', event: { type: 'upsert', resource: 'org_limits', id: 'o2' } };

describe('change visibility', () => {
  it('shows an org-wide key everything in its org', () => {
    for (const e of [inP1, inP2, orgLevel]) expect(changeVisibleTo(auth({}), e)).toBe(true);
  });

  it("never shows another organization's changes, org-level or not", () => {
    expect(changeVisibleTo(auth({}), otherOrg)).toBe(false);
    expect(changeVisibleTo(auth({}), { ...inP1, orgId: 'o2' })).toBe(false);
  });

  it("shows a project-scoped key its project's changes only, nothing org-level", () => {
    const scoped = auth({ credentialProjectId: 'p1' });
    expect(changeVisibleTo(scoped, inP1)).toBe(true);
    expect(changeVisibleTo(scoped, inP2)).toBe(false);
    expect(changeVisibleTo(scoped, orgLevel)).toBe(false);
    // The project header does not widen a scoped key.
    expect(changeVisibleTo(auth({ credentialProjectId: 'p1', projectId: 'p2' }), inP2)).toBe(false);
  });

  it('gives session tokens and invocation keys nothing', () => {
    for (const strategy of ['session_jwt', 'invocation_key'] as const) {
      expect(changeVisibleTo(auth({ strategy, sessionId: 's' }), inP1)).toBe(false);
      expect(() => requireFeedAccess(auth({ strategy }))).toThrow(/API key/);
    }
    expect(() => requireFeedAccess(auth({}))).not.toThrow();
  });
});
