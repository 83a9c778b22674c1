/**
 * A BiDi connection that starts with a command instead of `session.new` gets a default session
 * first. chromium-bidi only discovers the browser's tabs once a session is made, and a client
 * coming from a classic WebDriver New Session with `webSocketUrl: true` (WebdriverIO) never
 * sends `session.new`: the BiDi session is supposed to exist already, as it does behind
 * chromedriver. So the first other command is held, `session.new` goes to the mapper under an
 * id of its own, its answer is swallowed, and the held commands follow in order. Clients that
 * open their own session (Puppeteer) see no difference.
 */

/** The largest BiDi command id (js-uint): the implicit `session.new`'s, never a client's in practice. */
export const IMPLICIT_SESSION_ID = Number.MAX_SAFE_INTEGER;

export interface ImplicitSession {
  /** Hands a client command on (to `dispatch`), opening the implicit session first when needed. */
  dispatch(command: { id?: unknown; method?: unknown }): void;
  /** True when `message` from the mapper is the implicit session's answer (not for the client). */
  swallow(message: unknown): boolean;
}

export function implicitSession(dispatch: (command: unknown) => void): ImplicitSession {
  let state: 'none' | 'opening' | 'open' = 'none';
  const held: unknown[] = [];
  return {
    dispatch(command) {
      if (state === 'open') return dispatch(command);
      if (state === 'opening') return void held.push(command);
      if (command.method === 'session.new' || command.method === 'session.status') {
        if (command.method === 'session.new') state = 'open';
        return dispatch(command);
      }
      state = 'opening';
      held.push(command);
      dispatch({ id: IMPLICIT_SESSION_ID, method: 'session.new', params: { capabilities: {} } });
    },
    swallow(message) {
      if (state !== 'opening' || (message as { id?: unknown } | null)?.id !== IMPLICIT_SESSION_ID) return false;
      state = 'open';
      for (const c of held.splice(0)) dispatch(c);
      return true;
    },
  };
}
