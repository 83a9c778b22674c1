import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { debianMirror, writeAptSources } from './apt-sources.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-apt-sources-'));
const saved = process.env.BROWSERDECK_IMAGE_APT_SOURCES;
afterEach(() => {
  if (saved === undefined) delete process.env.BROWSERDECK_IMAGE_APT_SOURCES;
  else process.env.BROWSERDECK_IMAGE_APT_SOURCES = saved;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function override(name, text) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  process.env.BROWSERDECK_IMAGE_APT_SOURCES = file;
}

describe("the image's apt sources", () => {
  it('takes the mirror of a one-line sources file and writes it without its comments', () => {
    override('one.list', '# from http://secret-proxy.internal/\ndeb [signed-by=/k.gpg] http://mirror.example/debian bookworm main\n');
    expect(debianMirror()).toBe('http://mirror.example/debian');
    const out = path.join(dir, 'ctx-one');
    writeAptSources(out);
    expect(fs.readFileSync(path.join(out, 'debian.list'), 'utf8')).toBe('deb [signed-by=/k.gpg] http://mirror.example/debian bookworm main\n');
  });

  it('keeps the stanzas of a deb822 file apart', () => {
    override(
      'two.sources',
      'Types: deb\n# a comment\nURIs: http://a.example/debian\nSuites: bookworm\n\nTypes: deb\nURIs: http://b.example/debian-security\nSuites: bookworm-security\n',
    );
    expect(debianMirror()).toBe('http://a.example/debian');
    const out = path.join(dir, 'ctx-two');
    writeAptSources(out);
    expect(fs.readFileSync(path.join(out, 'debian.sources'), 'utf8')).toBe(
      'Types: deb\nURIs: http://a.example/debian\nSuites: bookworm\n\nTypes: deb\nURIs: http://b.example/debian-security\nSuites: bookworm-security\n',
    );
  });
});
