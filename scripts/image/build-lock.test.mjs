import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const LOCK = new URL('./build-lock.mjs', import.meta.url).href;
// A lock of the test's own: a real image build may hold the machine's meanwhile (npm test's).
const env = { ...process.env, BROWSERDECK_IMAGE_BUILD_LOCK: `browserdeck-image-build-test-${process.pid}` };

/** A process that takes the lock, prints `got <what>`, holds it until its stdin closes, then exits. */
function holder(what) {
  const code = `const { holdImageBuildLock } = await import(${JSON.stringify(LOCK)});
await holdImageBuildLock(${JSON.stringify(what)});
console.log('got ${what}');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const said = (text) =>
    new Promise((resolve, reject) => {
      const check = () => out.includes(text) && resolve(out);
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      child.on('exit', () => (out.includes(text) ? resolve(out) : reject(new Error(`exited without saying "${text}":\n${out}`))));
      check();
    });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return { child, said, output: () => out, exited };
}

describe.skipIf(process.platform !== 'linux')('the image build lock (scripts/image/build-lock.mjs)', () => {
  it('makes a second build wait, naming the first, until the first process is gone', async () => {
    const first = holder('first build');
    await first.said('got first build');
    const second = holder('second build');
    await second.said(`waiting for the image build in progress (pid ${first.child.pid}: first build)`);
    expect(second.output()).not.toContain('got second build');
    first.child.stdin.end();
    await first.exited;
    await second.said('got second build');
    second.child.stdin.end();
    await second.exited;
  });

  it('is freed when its holder is killed', async () => {
    const first = holder('killed build');
    await first.said('got killed build');
    const second = holder('next build');
    await second.said('waiting for the image build in progress');
    first.child.kill('SIGKILL');
    await second.said('got next build');
    second.child.stdin.end();
    await second.exited;
  });
});
