/**
 * The signal behind an exit code: a shell, bwrap's init and node-pty all report a process killed
 * by signal N as 128 + N, so a code above 128 names it (`137` → `SIGKILL`). Linux numbering
 * (the engine runs sessions on Linux only); browser-safe, so the console names codes the same way.
 */
const LINUX_SIGNALS = [
  'SIGHUP',
  'SIGINT',
  'SIGQUIT',
  'SIGILL',
  'SIGTRAP',
  'SIGABRT',
  'SIGBUS',
  'SIGFPE',
  'SIGKILL',
  'SIGUSR1',
  'SIGSEGV',
  'SIGUSR2',
  'SIGPIPE',
  'SIGALRM',
  'SIGTERM',
  'SIGSTKFLT',
  'SIGCHLD',
  'SIGCONT',
  'SIGSTOP',
  'SIGTSTP',
  'SIGTTIN',
  'SIGTTOU',
  'SIGURG',
  'SIGXCPU',
  'SIGXFSZ',
  'SIGVTALRM',
  'SIGPROF',
  'SIGWINCH',
  'SIGIO',
  'SIGPWR',
  'SIGSYS',
] as const;

/** `SIGKILL` for 137, undefined for a code of 128 or below (an ordinary exit) or an unknown signal. */
export function exitSignal(code: number | null | undefined): string | undefined {
  if (code === null || code === undefined || code <= 128) return undefined;
  return LINUX_SIGNALS[code - 129];
}
