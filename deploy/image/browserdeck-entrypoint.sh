#!/bin/sh
# The image's entrypoint (under tini). The engine always runs as uid 1000; how it gets there
# depends on how the container was started (docs/operate/run-in-a-container.md):
#
# - As uid 1000 (the image's USER): runs the engine. With the runtime's /proc masks lifted
#   (`podman run --security-opt unmask=/proc/*`, docker's `systempaths=unconfined`) the session
#   jail works; without, the engine reports the jail off in /healthz and refuses non-loopback.
# - As root with CAP_SYS_ADMIN (the fallback for runtimes that cannot unmask /proc, such as
#   `podman kube play`, which ignores `procMount: Unmasked`): unmounts the masks over /proc —
#   bubblewrap's fresh procfs is refused while any part of the container's /proc is covered —
#   then drops to uid 1000 with no capabilities at all (bounding set empty) and no_new_privs, so
#   SYS_ADMIN exists only for this step.
# - BROWSERDECK_KEEP_ROOT=1 (and root): runs the engine as root, which gives each session its own
#   uid and, where the container may write its cgroups (privileged), per-session cgroups. The
#   engine then holds every capability the container has: only for a dedicated, privileged host.
set -eu

if [ "$(id -u)" = 0 ]; then
  # Mount points under /proc, deepest first (their names have no spaces: the runtime's list).
  masks=$(awk '$5 ~ /^\/proc\/./ { print $5 }' /proc/self/mountinfo | sort -r)
  for m in $masks; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || {
      echo "browserdeck-entrypoint: cannot unmount $m (no CAP_SYS_ADMIN?): the session jail will be off" >&2
      break
    }
  done
  if [ "${BROWSERDECK_KEEP_ROOT:-}" != 1 ]; then
    exec setpriv --reuid=1000 --regid=1000 --init-groups --inh-caps=-all --ambient-caps=-all \
      --bounding-set=-all --no-new-privs -- "$0" "$@"
  fi
fi

cd /opt/browserdeck
# The engine's esbuild bundle (scripts/build-engine-bundle.mjs), not its sources through tsx: the
# same engine without transpiling ~700 modules at each start. One process, so tini's SIGTERM
# reaches the engine's handler.
exec /usr/local/bin/node out/engine/cli.mjs "$@"
