/**
 * Every setting an operator gives the engine: its `serve` flag, its environment variable, its
 * default and what it means, in one table. The CLI (cli.ts) builds its parser, its `--help` and
 * the options it passes to `createEngine` from it; `npm run docs` writes
 * docs/operate/configuration.md from it (scripts/docs/gen-config.ts). How a value is read and
 * checked stays in config.ts (`resolveConfig`); config-options.test.ts proves each row's variable
 * and default are the ones resolveConfig uses, so the table cannot drift from the behaviour.
 */
import { listFrom, numberFrom, type EngineOptions } from './config.js';

export interface ConfigOption {
  /** The `serve` flag without its dashes; absent for a setting only the environment gives. */
  flag?: string;
  /** How the flag's text becomes the option: a string, a number, a comma-separated list, or a switch. */
  kind: 'string' | 'number' | 'list' | 'boolean';
  /** The placeholder `--help` shows for the flag's value (`N`, `DIR`, …). */
  value?: string;
  /** The environment variable resolveConfig reads when the flag is absent (a switch: `=1`). */
  env?: string;
  /** Where the value goes in EngineOptions (and EngineConfig), dotted for nested ones. */
  option: string;
  /** The default as it applies when neither is given, literal where it is one (checked by the test). */
  default?: string | number | boolean | readonly string[];
  /** The default in words, where it depends on the machine or is applied elsewhere. */
  defaultText?: string;
  /** What it does, for `--help` and the configuration page. */
  meaning: string;
}

export const CONFIG_OPTIONS: readonly ConfigOption[] = [
  { flag: 'port', kind: 'number', value: 'N', option: 'port', default: 8420, meaning: 'TCP port the API and the operator UI listen on; 0 picks a free one.' },
  {
    flag: 'host',
    kind: 'string',
    value: 'HOST',
    option: 'host',
    default: '127.0.0.1',
    meaning: 'Address to listen on. A non-loopback address needs the session jail (bubblewrap) or `--insecure-no-jail`.',
  },
  {
    flag: 'data-dir',
    kind: 'string',
    value: 'DIR',
    env: 'BROWSERDECK_DATA_DIR',
    option: 'dataDir',
    defaultText:
      '`$XDG_DATA_HOME/browserdeck` (`~/.local/share/browserdeck`); `/var/lib/browserdeck` for root on Linux; the platform app-data dir on macOS/Windows',
    meaning: 'Where the engine keeps its database (SQLite), keys, sessions, profiles, replays and deployments.',
  },
  {
    flag: 'database-url',
    kind: 'string',
    value: 'URL',
    env: 'BROWSERDECK_DATABASE_URL',
    option: 'databaseUrl',
    defaultText: 'none: SQLite inside the data dir',
    meaning: '`postgres://…` to keep the store in PostgreSQL (required for several engine nodes sharing one organization).',
  },
  {
    flag: 'chromium',
    kind: 'string',
    value: 'PATH',
    env: 'BROWSERDECK_CHROMIUM',
    option: 'chromiumPath',
    defaultText: 'discovered (system Chromium/Chrome)',
    meaning: 'Path of the Chromium or Chrome executable session browsers run.',
  },
  {
    flag: 'public-url',
    kind: 'string',
    value: 'URL',
    env: 'BROWSERDECK_PUBLIC_URL',
    option: 'publicUrl',
    defaultText: 'the listening address',
    meaning: 'Address clients use to reach this engine; session URLs (`cdp_ws_url`, live view) are built on it.',
  },
  {
    flag: 'node-url',
    kind: 'string',
    value: 'URL',
    env: 'BROWSERDECK_NODE_URL',
    option: 'nodeUrl',
    defaultText: 'the listening address',
    meaning: 'Multi-node (PostgreSQL): the address other engine nodes use to forward a request for a session or pool this node runs.',
  },
  {
    flag: 'node-heartbeat-timeout-seconds',
    kind: 'number',
    value: 'S',
    env: 'BROWSERDECK_NODE_HEARTBEAT_TIMEOUT_SECONDS',
    option: 'nodeHeartbeatTimeoutSeconds',
    default: 15,
    meaning:
      'Multi-node (PostgreSQL): a node silent this long is lost even while it holds its database lease (it hangs); at least 10. A killed node is noticed by its lease within seconds.',
  },
  {
    flag: 'max-concurrent-sessions',
    kind: 'number',
    value: 'N',
    env: 'BROWSERDECK_MAX_CONCURRENT_SESSIONS',
    option: 'maxConcurrentSessions',
    default: 50,
    meaning: 'The organization-wide cap on concurrently running browsers (sessions plus pool reservations).',
  },
  {
    flag: 'insecure-no-jail',
    kind: 'boolean',
    env: 'BROWSERDECK_INSECURE_NO_JAIL',
    option: 'insecureNoJail',
    default: false,
    meaning: 'Run browsers without the jail even where bubblewrap works, and allow a non-loopback `--host` where it does not.',
  },
  {
    flag: 'egress-deny',
    kind: 'list',
    value: 'CIDR,CIDR…',
    env: 'BROWSERDECK_EGRESS_DENY',
    option: 'egressDeny',
    default: ['169.254.0.0/16', 'fd00:ec2::254/128'],
    meaning: 'Address ranges session browsers and apps may not reach, checked on the resolved address of every connection (default: cloud metadata).',
  },
  {
    flag: 'egress-allow-loopback',
    kind: 'boolean',
    env: 'BROWSERDECK_EGRESS_ALLOW_LOOPBACK',
    option: 'egressLoopback',
    default: false,
    meaning:
      "Let session browsers, apps and proxy checks reach this host: its loopback (`localhost`, `127.0.0.0/8`, `::1`) and its own addresses. Needed to open a local dev server from a session; without it such pages get the engine's 403 naming this flag.",
  },
  {
    flag: 'otlp-allowed-hosts',
    kind: 'list',
    value: 'HOST,CIDR…',
    env: 'BROWSERDECK_OTLP_ALLOWED_HOSTS',
    option: 'otlpAllowedHosts',
    default: [],
    meaning: 'Hosts telemetry exports may go to (names, `*.suffix`, addresses, CIDR ranges); empty: any host. The egress deny ranges apply either way.',
  },
  {
    flag: 'region',
    kind: 'string',
    value: 'NAME',
    env: 'BROWSERDECK_REGION',
    option: 'region',
    default: 'us-east',
    meaning: 'This node’s region, reported on every session and pool; on a cluster a create naming a region goes to a node of it.',
  },
  {
    flag: 'standby',
    kind: 'number',
    value: 'N',
    env: 'BROWSERDECK_STANDBY',
    option: 'standby',
    defaultText: 'as many as `--standby-memory` holds, at 200 MB each',
    meaning: 'Launched, jailed, idle browsers kept ready for `POST /browsers`, at most (demand sets how many); 0 turns them off.',
  },
  {
    flag: 'standby-memory',
    kind: 'number',
    value: 'MB',
    env: 'BROWSERDECK_STANDBY_MEMORY_MB',
    option: 'standbyMemoryMb',
    defaultText: '10% of RAM, at most 2048',
    meaning: 'Memory the standby browsers may take together, in MB.',
  },
  {
    flag: 'standby-launches',
    kind: 'number',
    value: 'N',
    env: 'BROWSERDECK_STANDBY_LAUNCHES',
    option: 'standbyLaunches',
    defaultText: 'one per core, up to two per core while the CPUs have idle time',
    meaning:
      'Standby browsers launched at once. Given, a fixed number; by default one per core, and one more (up to two per core) after a launch while creates waited for launches and the CPUs had a quarter idle, one fewer while they are saturated.',
  },
  {
    flag: 'freeze-idle-seconds',
    kind: 'number',
    value: 'S',
    env: 'BROWSERDECK_FREEZE_IDLE_SECONDS',
    option: 'freezeIdleSeconds',
    default: 5,
    meaning: "Freeze a session's jail after this many seconds with no client connected and no API call; 0 = never.",
  },
  {
    flag: 'fs-watch-max-dirs',
    kind: 'number',
    value: 'N',
    env: 'BROWSERDECK_FS_WATCH_MAX_DIRS',
    option: 'fsWatchMaxDirs',
    default: 8192,
    meaning: 'Directories all `/fs/watch` watches of one session may watch together; a watch needing more is refused (409 `watch_limit`).',
  },
  {
    flag: 'runner-message-max-mb',
    kind: 'number',
    value: 'MB',
    env: 'BROWSERDECK_RUNNER_MESSAGE_MAX_MB',
    option: 'runnerMessageMaxMb',
    default: 32,
    meaning:
      'Largest message (MiB, 1–1024) a process running tenant code (executor, REPL, WebMCP tool runner, app) may send the engine; a larger one ends that process.',
  },
  {
    flag: 'pids-per-session',
    kind: 'number',
    value: 'N',
    env: 'BROWSERDECK_PIDS_PER_SESSION',
    option: 'pids.perSession',
    defaultText: '2048',
    meaning: 'Tasks (processes and threads) each session and each app process may have (a pids cgroup where the engine is root, else RLIMIT_NPROC).',
  },
  {
    flag: 'pids-per-engine',
    kind: 'number',
    value: 'N',
    env: 'BROWSERDECK_PIDS_PER_ENGINE',
    option: 'pids.perEngine',
    defaultText: "a quarter of the host's pid_max, at most 65536",
    meaning: "Tasks all of this engine's jails may have together.",
  },
  {
    flag: 'session-disk-mb',
    kind: 'number',
    value: 'MB',
    env: 'BROWSERDECK_SESSION_DISK_MB',
    option: 'sessionDiskMb',
    default: 2048,
    meaning:
      "Each session's disk quota in MiB (an ext4 image loop-mounted at its session dir, where the engine is root and loop devices work; elsewhere no quota).",
  },
  {
    flag: 'disk-reserve-mb',
    kind: 'number',
    value: 'MB',
    env: 'BROWSERDECK_DISK_RESERVE_MB',
    option: 'diskReserveMb',
    default: 1024,
    meaning: "Free space (MiB) the data dir keeps for the engine's own writes; below it session creates and large tenant writes are refused with 507.",
  },
  {
    flag: 'replay-retention-hours',
    kind: 'number',
    value: 'H',
    env: 'BROWSERDECK_REPLAY_RETENTION_HOURS',
    option: 'replayRetentionHours',
    default: 168,
    meaning: 'Hours a replay (MP4) is kept after its session ended.',
  },
  {
    flag: 'postmortem-retention-hours',
    kind: 'number',
    value: 'H',
    env: 'BROWSERDECK_POSTMORTEM_RETENTION_HOURS',
    option: 'postmortemRetentionHours',
    defaultText: 'the replays’ retention',
    meaning: "Hours an ended session's post-mortem (telemetry, service logs, process list, end reason) is kept and served by its routes.",
  },
  {
    flag: 'jail-uid-base',
    kind: 'number',
    value: 'UID',
    env: 'BROWSERDECK_JAIL_UID_BASE',
    option: 'jailUids.base',
    defaultText: '200000',
    meaning: 'A root engine runs each session and app process as its own uid from this range: its first uid.',
  },
  {
    flag: 'jail-uid-count',
    kind: 'number',
    value: 'N',
    env: 'BROWSERDECK_JAIL_UID_COUNT',
    option: 'jailUids.count',
    defaultText: '65536',
    meaning: 'How many uids the jail uid range holds.',
  },
  {
    flag: 'exec-per-session',
    kind: 'number',
    value: 'N',
    env: 'BROWSERDECK_EXEC_PER_SESSION',
    option: 'execLimits.perSession',
    default: 8,
    meaning: 'Concurrent process `exec` and code `execute` calls per session; more are 429 `concurrency_limit`.',
  },
  {
    flag: 'exec-per-engine',
    kind: 'number',
    value: 'N',
    env: 'BROWSERDECK_EXEC_PER_ENGINE',
    option: 'execLimits.perEngine',
    default: 32,
    meaning: 'Concurrent `exec`/`execute` calls across the engine; more are 429 `concurrency_limit`.',
  },
  {
    flag: 'exec-output-max-bytes',
    kind: 'number',
    value: 'BYTES',
    env: 'BROWSERDECK_EXEC_OUTPUT_MAX_BYTES',
    option: 'execLimits.outputMaxBytes',
    default: 4194304,
    meaning: 'Bytes of each `exec` output stream kept for its answer.',
  },
  {
    flag: 'connections-per-session',
    kind: 'number',
    value: 'N',
    env: 'BROWSERDECK_CONNECTIONS_PER_SESSION',
    option: 'connectionLimits.perSession',
    default: 64,
    meaning: 'Concurrent WebSocket connections (CDP, BiDi, live view, terminals, DevTools) per session; more are refused with 429 `connection_limit`.',
  },
  {
    flag: 'connections-per-engine',
    kind: 'number',
    value: 'N',
    env: 'BROWSERDECK_CONNECTIONS_PER_ENGINE',
    option: 'connectionLimits.perEngine',
    defaultText: "a quarter of the engine's soft open-file limit",
    meaning: 'Concurrent WebSocket connections across the engine.',
  },
  // Settings only the environment gives.
  {
    kind: 'string',
    env: 'BROWSERDECK_ADMIN_API_KEY',
    option: 'adminApiKey',
    defaultText: 'a random key, printed once',
    meaning: 'The admin API key to create on first start (an empty data dir) instead of a random one.',
  },
  {
    kind: 'number',
    env: 'BROWSERDECK_CREATE_DEADLINE_MS',
    option: 'createDeadlineMs',
    default: 40000,
    meaning: "The one deadline (ms) of a session create: directories, Xvfb, the browser's launch and the session-start work all run within it.",
  },
  {
    kind: 'string',
    env: 'BROWSERDECK_LOG_LEVEL',
    option: 'logLevel',
    default: 'info',
    meaning: 'The engine log level (pino: `fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`).',
  },
  {
    kind: 'string',
    env: 'BROWSERDECK_ASSETS_ROOT',
    option: 'assetsRoot',
    defaultText: 'the source tree',
    meaning: "Directory holding the scripts the engine's child processes start from (a bundled build's `engine-assets`).",
  },
  {
    kind: 'string',
    env: 'BROWSERDECK_CHROME_STORE_URL',
    option: 'chromeStoreUrl',
    defaultText: "Google's update endpoint",
    meaning: 'The Chrome Web Store update endpoint `GET /extensions/from_chrome_store` asks.',
  },
];

/** The flags as node:util parseArgs takes them. */
export function parseArgsOptions(): Record<string, { type: 'string' | 'boolean' }> {
  const out: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const o of CONFIG_OPTIONS) if (o.flag) out[o.flag] = { type: o.kind === 'boolean' ? 'boolean' : 'string' };
  return out;
}

/** The parsed flags as EngineOptions; an absent flag is left out, so the environment and then the default decide (config.ts). */
export function engineOptionsFromFlags(values: Record<string, string | boolean | undefined>): EngineOptions {
  const out: Record<string, unknown> = {};
  for (const o of CONFIG_OPTIONS) {
    if (!o.flag) continue;
    const v = flagValue(o, values[o.flag]);
    if (v === undefined) continue;
    const keys = o.option.split('.');
    let at = out;
    for (const k of keys.slice(0, -1)) at = (at[k] ??= {}) as Record<string, unknown>;
    at[keys[keys.length - 1]] = v;
  }
  return out as EngineOptions;
}

function flagValue(o: ConfigOption, v: string | boolean | undefined): unknown {
  // A switch only turns a setting on; off is its default (or the environment's).
  if (o.kind === 'boolean') return v === true || undefined;
  if (typeof v !== 'string') return undefined;
  if (o.kind === 'number') return numberFrom(v);
  if (o.kind === 'list') return listFrom(v);
  return v;
}

/** The default as a person reads it. */
export function defaultText(o: ConfigOption): string {
  if (o.defaultText !== undefined) return o.defaultText;
  if (o.default === undefined) return 'none';
  if (Array.isArray(o.default)) return o.default.length ? o.default.map((d) => `\`${d}\``).join(', ') : 'empty';
  if (typeof o.default === 'boolean') return o.default ? 'on' : 'off';
  return `\`${String(o.default)}\``;
}

/** `serve --help`: one line per flag with its variable and default. */
export function helpText(): string {
  const rows = CONFIG_OPTIONS.filter((o) => o.flag).map((o) => {
    const left = `  --${o.flag}${o.value ? ` ${o.value}` : ''}`;
    const env = o.env ? `  [${o.env}${o.kind === 'boolean' ? '=1' : ''}]` : '';
    return `${left.padEnd(36)} ${o.meaning.replace(/`/g, '')}${env}  (default: ${defaultText(o).replace(/`/g, '')})`;
  });
  const envOnly = CONFIG_OPTIONS.filter((o) => !o.flag).map((o) => `  ${o.env!.padEnd(34)} ${o.meaning.replace(/`/g, '')}`);
  return [...rows, '', 'Environment only:', ...envOnly].join('\n') + '\n';
}
