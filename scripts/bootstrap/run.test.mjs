import { describe, expect, it } from 'vitest';
import { run } from './run.mjs';

// The exit code carries what the child saw (run() inherits stdio and returns only the code).
const exitWithNiceness = ['-e', "process.exit(require('node:os').getPriority())"];

describe('run', () => {
  it('runs the program at the niceness asked for, and at ours without', async () => {
    const ours = (await import('node:os')).getPriority();
    expect(await run(process.execPath, exitWithNiceness, { nice: 19 })).toBe(19);
    expect(await run(process.execPath, exitWithNiceness)).toBe(ours);
  });

  it("resolves with the program's exit code through nice", async () => {
    expect(await run(process.execPath, ['-e', 'process.exit(3)'], { nice: 5 })).toBe(3);
  });
});
