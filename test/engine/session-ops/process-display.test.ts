/**
 * In a headful session the session's processes can use its display (DISPLAY is set): the jailed
 * Xvfb's socket dir is bound into their sandbox at /tmp/.X11-unix, and only that session's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

const text = (b64?: string | null) => Buffer.from(b64 ?? '', 'base64').toString('utf8');

describe('the display of a headful session', () => {
  let te: TestEngine;
  beforeAll(async () => {
    te = await startTestEngine();
  });
  afterAll(async () => {
    await te?.stop();
  });

  it('is usable by its processes (xdotool) and by nothing of a headless session', async () => {
    const headful = await te.client.browsers.create({ headless: false, viewport: { width: 1024, height: 768 } });
    const headless = await te.client.browsers.create({ headless: true });
    try {
      const r = await te.client.browsers.process.exec(headful.session_id, {
        command: 'sh',
        args: ['-c', 'echo "display=$DISPLAY"; xdotool getdisplaygeometry'],
      });
      expect(text(r.stderr_b64)).toBe('');
      expect(text(r.stdout_b64)).toMatch(/^display=:\d+\n1024 768\n$/);
      // A headless session has no display and no X socket of anyone else's.
      const none = await te.client.browsers.process.exec(headless.session_id, { command: 'sh', args: ['-c', 'ls -A /tmp/.X11-unix 2>/dev/null | wc -l'] });
      expect(text(none.stdout_b64).trim()).toBe('0');
    } finally {
      await te.client.browsers.deleteByID(headful.session_id);
      await te.client.browsers.deleteByID(headless.session_id);
    }
  });
});
