/**
 * Where the image's Debian packages come from: the build host's own Debian sources when it runs
 * bookworm (its mirror or proxy is the one known to work here), else deb.debian.org. The file is
 * bind-mounted into the one build step that runs apt (deploy/image/Containerfile), never copied
 * into a layer. BROWSERDECK_IMAGE_APT_SOURCES=<file> (deb822 or one-line format) overrides it.
 */
import fs from 'node:fs';
import path from 'node:path';

const DEFAULT_MIRROR = 'http://deb.debian.org/debian';
const DEFAULT_SOURCES = `Types: deb
URIs: ${DEFAULT_MIRROR}
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
`;

/** The host's Debian sources as [file name, text], or null when it has none for bookworm. */
function hostSources() {
  const override = process.env.BROWSERDECK_IMAGE_APT_SOURCES;
  if (override) {
    const name = override.endsWith('.sources') ? 'debian.sources' : 'debian.list';
    return [name, fs.readFileSync(override, 'utf8')];
  }
  // Only Debian's own entries: third-party repositories need keys the image does not have.
  for (const file of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    let text;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    // Comments go (they may name other hosts); blank lines stay (they separate deb822 stanzas).
    const kept = text.split('\n').filter((l) => !l.trim().startsWith('#'));
    if (kept.some((l) => /\bbookworm\b/.test(l))) return [file.endsWith('.sources') ? 'debian.sources' : 'debian.list', kept.join('\n')];
  }
  return null;
}

/** Writes the sources into `dir` (the build context's `apt/`, mounted at /etc/apt/sources.list.d). */
export function writeAptSources(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const [name, text] = hostSources() ?? ['debian.sources', DEFAULT_SOURCES];
  fs.writeFileSync(path.join(dir, name), text);
}

/** The Debian archive debootstrap fetches from: the first one of the sources above. */
export function debianMirror() {
  const [, text] = hostSources() ?? ['', DEFAULT_SOURCES];
  const deb822 = /^URIs:\s*(\S+)/m.exec(text);
  const oneLine = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s/m.exec(text);
  return (oneLine ?? deb822)?.[1] ?? DEFAULT_MIRROR;
}
