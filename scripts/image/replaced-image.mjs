/**
 * After a rebuild, the image the tag named before is left untagged. Only that one is removed:
 * a blanket `podman image prune` also removed the fresh, still unnamed layers of another build
 * running at the same moment (the image and cluster tests build in parallel), whose commit then
 * failed with "layer not known".
 */
import { capture, run } from '../bootstrap/run.mjs';

/** The id `ref` names now, or null. */
export function imageId(ref) {
  return capture('podman', ['image', 'inspect', '--format', '{{.Id}}', ref]);
}

/** Removes `previousId` if `ref` no longer names it; podman refuses (and nothing happens) while another tag or a container uses it. */
export async function removeReplaced(ref, previousId) {
  if (previousId && imageId(ref) !== previousId) await run('podman', ['rmi', previousId], { stdio: 'ignore' });
}
