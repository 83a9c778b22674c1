/**
 * `POST /browsers/{id}/profiles` (Kernel spec §8): saves the running browser's state into a new
 * or existing profile without ending the session (the browser restarts; CDP clients reconnect).
 * The rules are `domain/sessions/session-profile-save.ts`; the answer is the Profile object.
 */
import type { Feature } from '../feature.js';
import { profileDto } from '../domain/profiles/profiles.js';
import { saveRunningBrowserToProfile } from '../domain/sessions/session-profile-save.js';
import { assertDiskRoom } from '../domain/disk-reserve.js';
import { route } from '../route.js';

export const sessionProfileSaveFeature: Feature<'sessions' | 'profiles'> = {
  name: 'session-profile-save',
  register(app, ctx, { sessions, profiles }) {
    route(app, 'POST /browsers/:id/profiles', async (req) => {
      // A profile is a copy of the browser's state, written into the data dir.
      await assertDiskRoom(ctx.config, 'saving a profile');
      return profileDto(await saveRunningBrowserToProfile(sessions, profiles.profiles, req.auth, req.params.id, req.body ?? {}));
    });
  },
};
