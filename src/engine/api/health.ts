/**
 * `GET /healthz` (no auth) and `GET /openapi.json` (generated from the route schemas).
 * Health says what an operator needs to know and nothing a stranger could use: the version,
 * how long this engine has run, whether tenants run jailed (and Chromium's own sandbox inside
 * the jail), and which store it uses and whether that answers, its standby browsers and frozen
 * sessions (counts, budget, how it freezes), the resource limits in force — never a path, host
 * or connection string.
 */
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Feature } from '../feature.js';
import { jailStatus } from '../runtime/sandbox/jail-status.js';
import { ENGINE_VERSION } from '../engine-version.js';
import { freezeMethod } from '../runtime/session/jail-freezer.js';
import { memoryMethod } from '../runtime/sandbox/memory-group.js';
import { usableBwrap } from '../runtime/sandbox/bwrap.js';
import { chromiumSandboxState } from '../runtime/sandbox/session-jail.js';
import { runnerMessageLimit, runnerPendingLimit } from '../runtime/sandbox/runner-channel.js';
import { pidsLimits, pidsMethod } from '../runtime/sandbox/pids-group.js';
import { TENANTS_CPU_SHARES, tenantsCpuGroup } from '../runtime/sandbox/cpu-group.js';
import type { Health } from '../../shared/wire/health.js';
import { diskLow } from '../domain/disk-reserve.js';
import { route } from '../route.js';

/** A store that has not answered this cheap query in this long counts as not answering. */
const STORE_PROBE_MS = 2_000;

export const healthFeature: Feature<'sessions' | 'sessionDisks' | 'callLimits'> = {
  name: 'health',
  async register(app: FastifyInstance, ctx, { sessions, sessionDisks, callLimits }) {
    // `jail`: whether tenants' browsers, processes, code and apps run jailed, and why not.
    const jail = await jailStatus(ctx.config);
    const jailBody = (): Health['jail'] => (jail.bwrap ? { enabled: true, chromium_sandbox: chromiumSandboxState() } : { enabled: false, reason: jail.reason });
    // Watchers are jailed wherever session processes are (session-fs/fs-watcher-launch.ts).
    const watchersJailed = Boolean(await usableBwrap());
    const startedAt = performance.now();
    const storeAnswers = async (): Promise<boolean> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), STORE_PROBE_MS)));
      try {
        return await Promise.race([
          sql`select 1`.execute(ctx.db).then(
            () => true,
            () => false,
          ),
          late,
        ]);
      } finally {
        clearTimeout(timer);
      }
    };
    route(app, 'GET /healthz', { config: { public: true } }, async (_req, reply): Promise<Health> => {
      const answers = await storeAnswers();
      // 503 when the store does not answer, so a load balancer takes this node out.
      reply.code(answers ? 200 : 503);
      return {
        ok: answers,
        version: ENGINE_VERSION,
        uptime_seconds: Math.floor((performance.now() - startedAt) / 1000),
        jail: jailBody(),
        store: { kind: ctx.store.dialect, ok: answers },
        standby: sessions.standby.status(),
        freeze: {
          method: ctx.config.freezeIdleSeconds > 0 ? freezeMethod().method : 'off',
          idle_seconds: ctx.config.freezeIdleSeconds,
          frozen: sessions.all().filter((rt) => rt.frozen).length,
        },
        memory: { method: memoryMethod().method },
        limits: {
          // One switch opens both (egress-policy.ts tenantEgressPolicyOf); the addresses stay unsaid.
          egress: { host_addresses_denied: !ctx.config.egressLoopback, loopback_denied: !ctx.config.egressLoopback },
          fs_watch: { max_dirs_per_session: ctx.config.fsWatchMaxDirs, jailed: watchersJailed },
          runner_channel: { max_message_bytes: runnerMessageLimit(), max_pending_bytes: runnerPendingLimit() },
          pids: { method: pidsMethod().method, per_session: pidsLimits().perSession, per_engine: pidsLimits().perEngine },
          cpu: { method: tenantsCpuGroup().method, tenants_shares: TENANTS_CPU_SHARES },
          disk: {
            method: (await sessionDisks.ready()) === 'loop' ? 'loop' : 'none',
            per_session_mb: ctx.config.sessionDiskMb,
            reserve_mb: ctx.config.diskReserveMb,
            low: await diskLow(ctx.config),
          },
          exec: callLimits.status(),
          connections: ctx.upgrades.gate?.status() ?? { per_session: 0, per_engine: 0, open: 0 },
        },
      };
    });
    route(app, 'GET /openapi.json', async () => app.swagger());
  },
};
