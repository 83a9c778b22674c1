import { describe, expect, it } from 'vitest';
import { installEnv } from './install-env.mjs';

describe('installEnv', () => {
  it('compiles C at -O1 without warning analyses and never downloads Electron', () => {
    const env = installEnv({ PATH: '/usr/bin' });
    expect(env).toEqual({ PATH: '/usr/bin', CFLAGS: '-O1 -Wno-all -Wno-extra', ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
  });

  it("keeps the user's own CFLAGS", () => {
    expect(installEnv({ CFLAGS: '-O3 -march=native' }).CFLAGS).toBe('-O3 -march=native');
  });
});
