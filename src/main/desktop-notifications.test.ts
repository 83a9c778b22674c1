import { describe, expect, it } from 'vitest';
import { NoticeRules } from './desktop-notifications.js';

const SINCE = Date.parse('2026-12-02T08:00:00Z');
const after = '2026-12-02T08:05:00Z';
const before = '2026-12-02T07:55:00Z';
const session = {
  session_id: 'abcdef1234567890abcdef12',
  name: 'checkout',
  ended_reason: undefined as string | undefined,
  deleted_at: undefined as string | undefined,
};
const invocation = {
  id: 'inv1',
  app_name: 'shop',
  action_name: 'checkout-bot',
  status: 'failed' as const,
  status_reason: 'TimeoutError: waiting for #pay',
  started_at: after,
  finished_at: after,
};

describe('desktop notifications', () => {
  it('says a crashed session once, with a route to it; other endings are not news', () => {
    const rules = new NoticeRules(SINCE);
    const crashed = { ...session, ended_reason: 'browser_crashed', deleted_at: after };
    expect(rules.session(crashed)).toEqual([
      {
        key: `session:${session.session_id}:crashed`,
        title: 'Session crashed',
        body: 'The browser of checkout (abcdef12) crashed. Its telemetry, logs and replays are kept.',
        route: `/sessions/${session.session_id}`,
      },
    ]);
    expect(rules.session(crashed)).toEqual([]);
    for (const reason of ['deleted', 'timeout', 'engine_stopped', 'invocation_ended'])
      expect(new NoticeRules(SINCE).session({ ...session, ended_reason: reason, deleted_at: after })).toEqual([]);
    expect(new NoticeRules(SINCE).session({ ...session, ended_reason: 'browser_crashed', deleted_at: before })).toEqual([]);
  });

  it('says a recording is ready when its file plays, not while recording or when it failed', () => {
    const rules = new NoticeRules(SINCE);
    expect(rules.session(session, [{ replay_id: 'r1', finished_at: null, ready: false }])).toEqual([]);
    expect(rules.session(session, [{ replay_id: 'r1', finished_at: after, ready: false }])).toEqual([]);
    expect(rules.replayPending({ replay_id: 'r2', finished_at: after })).toBe(true);
    expect(rules.session(session, [{ replay_id: 'r2', finished_at: after, ready: true }])).toEqual([
      {
        key: 'replay:r2:ready',
        title: 'Recording ready',
        body: 'The replay of checkout (abcdef12) is ready to watch.',
        route: `/sessions/${session.session_id}/replays`,
      },
    ]);
    expect(rules.replayPending({ replay_id: 'r2', finished_at: after })).toBe(false);
    expect(rules.session(session, [{ replay_id: 'r2', finished_at: after, ready: true }])).toEqual([]);
    // Finished before the app watched: old news.
    expect(rules.replayPending({ replay_id: 'r3', finished_at: before })).toBe(false);
    expect(rules.session(session, [{ replay_id: 'r3', finished_at: before, ready: true }])).toEqual([]);
  });

  it('says a failed invocation once with its reason; other states are not news', () => {
    const rules = new NoticeRules(SINCE);
    expect(rules.invocation(invocation)).toEqual([
      { key: 'invocation:inv1:failed', title: 'Invocation failed', body: 'shop · checkout-bot: TimeoutError: waiting for #pay', route: '/invocations/inv1' },
    ]);
    expect(rules.invocation(invocation)).toEqual([]);
    for (const status of ['queued', 'running', 'succeeded'] as const) expect(new NoticeRules(SINCE).invocation({ ...invocation, status })).toEqual([]);
    expect(new NoticeRules(SINCE).invocation({ ...invocation, started_at: before, finished_at: before })).toEqual([]);
    const long = new NoticeRules(SINCE).invocation({ ...invocation, status_reason: 'x'.repeat(500) })[0].body;
    expect(long.length).toBe(180);
    expect(long.endsWith('…')).toBe(true);
  });
});
