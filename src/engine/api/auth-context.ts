/**
 * `GET /auth/context` (Kernel SDK 0.87): the identity and scope the engine resolved for the
 * calling credential — how it authenticated, the project the credential is limited to, the
 * project this request acts in, the organization and the principal. No secrets. Answered for
 * API keys (bearer or the console's sign-in), invocation keys and session tokens (`?jwt=`).
 */
import type { Feature } from '../feature.js';
import { type AuthContextInfo } from '../../shared/wire/org.js';
import { bearerOf, type AuthContext } from '../domain/org/auth-context.js';
import { selectedProject } from '../http/auth.js';
import { CONSOLE_HEADER } from './console-session.js';
import { route } from '../route.js';

export function describeCaller(auth: AuthContext, signals: { bearer: boolean; console: boolean; projectHeader: boolean }): AuthContextInfo {
  const jwt = auth.strategy === 'session_jwt';
  const storedKey = auth.strategy === 'api_key';
  // An org-wide credential acts organization-wide unless the request picked a project.
  const effective = auth.credentialProjectId ?? (signals.projectHeader ? auth.projectId : null);
  return {
    authentication: {
      method: jwt ? 'jwt' : 'api_key',
      source: storedKey && !signals.bearer && signals.console ? 'dashboard' : 'api_key',
      credential_id: storedKey ? auth.userId : null,
    },
    authorization: { credential_scope: { project_id: auth.credentialProjectId }, effective_scope: { project_id: effective } },
    organization: { id: auth.orgId },
    principal: { id: auth.userId, type: 'api_key' },
  };
}

export const authContextFeature: Feature = {
  name: 'auth-context',
  register(app) {
    route(app, 'GET /auth/context', async (req) =>
      describeCaller(req.auth, {
        bearer: bearerOf(req) !== undefined,
        console: req.headers[CONSOLE_HEADER] !== undefined,
        projectHeader: selectedProject(req) !== null,
      }),
    );
  },
};
