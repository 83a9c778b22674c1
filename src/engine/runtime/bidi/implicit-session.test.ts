import { describe, expect, it } from 'vitest';
import { IMPLICIT_SESSION_ID, implicitSession } from './implicit-session.js';

describe('implicitSession', () => {
  it('opens a session before the first other command, holds commands until it answers, hides its answer', () => {
    const sent: unknown[] = [];
    const s = implicitSession((c) => sent.push(c));
    s.dispatch({ id: 1, method: 'session.status' });
    s.dispatch({ id: 2, method: 'browsingContext.getTree' });
    s.dispatch({ id: 3, method: 'script.evaluate' });
    expect(sent).toEqual([
      { id: 1, method: 'session.status' },
      { id: IMPLICIT_SESSION_ID, method: 'session.new', params: { capabilities: {} } },
    ]);
    expect(s.swallow({ id: 1, type: 'success' })).toBe(false);
    expect(s.swallow({ id: IMPLICIT_SESSION_ID, type: 'success', result: {} })).toBe(true);
    expect(sent.slice(2)).toEqual([
      { id: 2, method: 'browsingContext.getTree' },
      { id: 3, method: 'script.evaluate' },
    ]);
    s.dispatch({ id: 4, method: 'session.end' });
    expect(sent.at(-1)).toEqual({ id: 4, method: 'session.end' });
    expect(s.swallow({ id: IMPLICIT_SESSION_ID, type: 'success' })).toBe(false);
  });

  it('stays out of the way of a client that sends session.new itself', () => {
    const sent: unknown[] = [];
    const s = implicitSession((c) => sent.push(c));
    const open = { id: 1, method: 'session.new', params: { capabilities: {} } };
    s.dispatch(open);
    s.dispatch({ id: 2, method: 'browsingContext.getTree' });
    expect(sent.map((c) => (c as { id: number }).id)).toEqual([1, 2]);
  });
});
