/**
 * Streams a session directory as a zip (yazl): entries are listed first (names only, walked by
 * handles inside the root), and each file is opened lazily when yazl reaches it — walked again
 * from the root, so a directory swapped for a link since the listing leads nowhere outside — so
 * a large tree costs one open file and a small buffer at a time. Symlinks and special files are
 * skipped.
 */
import { Readable } from 'node:stream';
import yazl from 'yazl';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { normalizeClientPath } from './client-path.js';
import { notFound, withRoot, type Pinned, type RootedFs } from './rooted-fs.js';
import { fsError } from './fs-errors.js';

interface Item {
  rel: string;
  dir: boolean;
  mtime: Date;
  mode: number;
}

async function collect(r: RootedFs, dir: Pinned, prefix: string, out: Item[]): Promise<void> {
  const entries = await r.entries(dir).catch(() => []);
  for (const { name, stat } of entries) {
    const rel = prefix ? `${prefix}/${name}` : name;
    if (stat.isFile()) out.push({ rel, dir: false, mtime: stat.mtime, mode: stat.mode });
    if (!stat.isDirectory()) continue;
    const child = await r.pin(r.at(dir, name));
    if (!child?.stat.isDirectory()) continue; // replaced meanwhile
    try {
      out.push({ rel, dir: true, mtime: child.stat.mtime, mode: child.stat.mode });
      await collect(r, child, rel, out);
    } finally {
      await r.release(child);
    }
  }
}

/** A file of the listing, opened afresh; a file gone or changed into something else reads as empty. */
async function openEntry(root: string, virtual: string): Promise<Readable> {
  try {
    const { handle } = await withRoot(root, (r) => r.openForRead(virtual));
    return handle.createReadStream({ autoClose: true });
  } catch {
    return Readable.from([]);
  }
}

export async function zipDirectory(root: string, clientPath: unknown): Promise<Readable> {
  const virtual = normalizeClientPath(clientPath);
  const items: Item[] = [];
  await withRoot(root, async (r) => {
    const p = await r.resolve(virtual, { followLeaf: true });
    if (!p.leaf) throw notFound(virtual);
    if (!p.leaf.stat.isDirectory()) throw new DomainError(400, 'not_a_directory', `${virtual} is not a directory`);
    await collect(r, p.leaf, '', items);
  }).catch((err) => {
    throw fsError(err, virtual);
  });
  const zip = new yazl.ZipFile();
  for (const item of items) {
    if (item.dir) {
      zip.addEmptyDirectory(item.rel, { mtime: item.mtime, mode: item.mode });
      continue;
    }
    const entryPath = virtual === '/' ? `/${item.rel}` : `${virtual}/${item.rel}`;
    zip.addReadStreamLazy(item.rel, { mtime: item.mtime, mode: item.mode }, (cb) => {
      openEntry(root, entryPath).then(
        (stream) => cb(null, stream),
        () => cb(null, Readable.from([])),
      );
    });
  }
  zip.end();
  return zip.outputStream as unknown as Readable;
}
