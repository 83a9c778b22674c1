/**
 * A directory as a zip in memory (yazl), for `browserdeck deploy`: relative paths, `/` separators,
 * files and their modes. `.git` and `node_modules` are left out unless asked for: the engine
 * installs a package.json's dependencies itself, and resolves @onkernel/sdk and playwright-core
 * from its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import yazl from 'yazl';

export async function zipDir(dir: string, opts: { withNodeModules?: boolean } = {}): Promise<{ zip: Buffer; files: number }> {
  const zip = new yazl.ZipFile();
  let files = 0;
  const walk = (abs: string, rel: string) => {
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      if (e.name === '.git' || (e.name === 'node_modules' && !opts.withNodeModules)) continue;
      const a = path.join(abs, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(a, r);
      else if (e.isFile()) {
        zip.addFile(a, r, { mode: fs.statSync(a).mode });
        files++;
      }
      // Symlinks and other kinds are skipped: the engine refuses links out of the app anyway.
    }
  };
  walk(dir, '');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return { zip: Buffer.concat(chunks), files };
}
