/** How login flows reach profiles: find the connection's profile by name, creating it if missing. */
import type { ProfileService } from '../profiles/profile-binding.js';
import type { ProfileAccess } from './auth-service.js';

export function profileAccess(svc: ProfileService): ProfileAccess {
  return {
    async ensure(scope, name) {
      const found = await svc.profiles.find(scope, name);
      if (found) return found.id;
      try {
        return (await svc.profiles.create(scope, name)).id;
      } catch (err) {
        const again = await svc.profiles.find(scope, name); // created concurrently
        if (again) return again.id;
        throw err;
      }
    },
  };
}
