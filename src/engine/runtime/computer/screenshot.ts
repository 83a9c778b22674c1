/**
 * `computer/screenshot`: a PNG of the active page at the session's screen size, or of a
 * region of it. Regions must lie inside the screen.
 */
import { InputError, type InputTarget } from './input-target.js';

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

export async function screenshot(t: InputTarget, region?: Region): Promise<Buffer> {
  const params: Record<string, unknown> = { format: 'png', captureBeyondViewport: false };
  if (region) {
    const { width, height } = await t.screen();
    if (region.width < 1 || region.height < 1) throw new InputError('region: width and height must be at least 1', 'region');
    if (region.x + region.width > width || region.y + region.height > height) {
      throw new InputError(`region: ${region.width}x${region.height}+${region.x}+${region.y} does not fit the screen (${width}x${height})`, 'region');
    }
    params.clip = { ...region, scale: 1 };
  }
  const r = await t.page('Page.captureScreenshot', params, 30_000);
  return Buffer.from(r.data, 'base64');
}
