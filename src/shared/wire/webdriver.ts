/**
 * Wire schemas of the classic W3C WebDriver endpoint (`/browsers/{id}/webdriver/*`). Bodies and
 * answers are the W3C protocol's own (passed to and from the session's chromedriver), so only
 * the path is described here.
 */
import { Type, type Static } from '@sinclair/typebox';
import { SessionIdSchema } from './session-id.js';

export const WebdriverParamsSchema = Type.Object({
  id: SessionIdSchema,
  /** The W3C command path below the endpoint, e.g. `session/{sessionId}/url`. */
  '*': Type.Optional(Type.String({ maxLength: 4096 })),
});
export type WebdriverParams = Static<typeof WebdriverParamsSchema>;
