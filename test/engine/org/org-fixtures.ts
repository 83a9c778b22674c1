/**
 * Fixtures for the organization tests: a clock the test moves by hand, a second organization
 * created straight in the database (the API has no "create organization"), and helpers to
 * assert the wire Error object.
 */
import { expect } from 'vitest';
import Kernel from '@onkernel/sdk';
import type { Clock } from '../../../src/shared/clock.js';
import { newId } from '../../../src/engine/domain/ids.js';
import type { TestEngine } from '../../helpers/engine.js';

export const DAY = 86_400_000;

export interface ManualClock extends Clock {
  advance(ms: number): void;
  set(iso: string): void;
}

export function manualClock(startIso = '2026-03-01T12:00:00.000Z'): ManualClock {
  let now = Date.parse(startIso);
  return {
    now: () => new Date(now),
    advance: (ms) => {
      now += ms;
    },
    set: (iso) => {
      now = Date.parse(iso);
    },
  };
}

export interface OtherOrg {
  orgId: string;
  projectId: string;
  keyId: string;
  key: string;
  client: Kernel;
}

/** A second organization with one project and an org-wide key, written directly to the store. */
export async function createOtherOrg(t: TestEngine, name = 'other'): Promise<OtherOrg> {
  const ctx = t.engine.context;
  const orgId = newId();
  await ctx.db
    .insertInto('orgs')
    .values({ id: orgId, name, admin_email: `${name}@example.test`, default_project_max_concurrent_sessions: null, created_at: ctx.clock.now().toISOString() })
    .execute();
  const project = await ctx.projects.create(orgId, `${name}-project`);
  const { row, key } = await ctx.apiKeys.issue({ orgId, name: `${name}-admin`, projectId: null, createdById: null, expiresAt: null });
  return { orgId, projectId: project.id, keyId: row.id, key, client: t.clientWith({ apiKey: key }) };
}

/** Asserts that a call fails with `status` and a well-formed Error object; returns the body. */
export async function expectApiError(
  p: Promise<unknown>,
  status: number,
  messagePattern?: RegExp,
): Promise<{ code: string; message: string; details: Array<{ code: string; message: string }> }> {
  const err = await p.then(
    () => {
      throw new Error(`expected HTTP ${status}, but the call succeeded`);
    },
    (e: unknown) => e as { status?: number; error?: unknown },
  );
  expect(err.status, JSON.stringify(err.error)).toBe(status);
  const body = err.error as { code: string; message: string; details: Array<{ code: string; message: string }> };
  expect(body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  if (messagePattern) expect(body.message).toMatch(messagePattern);
  return body;
}

/** A raw response must be an Error object with this status; returns the body. */
export async function expectErrorResponse(
  res: Response,
  status: number,
): Promise<{ code: string; message: string; details: Array<{ code: string; message: string }> }> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  const body = JSON.parse(text);
  expect(body).toMatchObject({ code: expect.any(String), message: expect.any(String), details: expect.any(Array) });
  return body;
}
