/**
 * The engine's one SecretCipher, created on first use from `config.identity.secretKeyProvider`
 * (desktop: OS keychain) or the server default (env variable, else key file), and shared as
 * `ctx.services.secrets` by every feature that stores secrets.
 */
import type { EngineContext } from '../../context.js';
import { SecretCipher } from './secret-cipher.js';
import { defaultSecretKeyProvider } from './secret-key-provider.js';

export async function secretsOf(ctx: EngineContext): Promise<SecretCipher> {
  const existing = ctx.services.secrets as SecretCipher | undefined;
  if (existing) return existing;
  const provider = ctx.config.identity.secretKeyProvider ?? defaultSecretKeyProvider(ctx.config.env, ctx.config.dataDir);
  const cipher = new SecretCipher(provider);
  await cipher.ready();
  ctx.services.secrets ??= cipher;
  return ctx.services.secrets as SecretCipher;
}
