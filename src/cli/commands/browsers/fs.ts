/**
 * `browserdeck browsers fs ls|cat|write|rm|mkdir <id> <path>`: the session's filesystem (the
 * jail's view). `cat` writes the file's bytes to stdout; `write` reads them from --from FILE or
 * stdin.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { contextOf } from '../../command-context.js';
import { printTable } from '../../output.js';

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

export function registerBrowsersFs(browsers: Command): void {
  const fsCmd = browsers.command('fs').description("a session's files: ls, cat, write, rm, mkdir");

  fsCmd
    .command('ls')
    .description('list a directory')
    .argument('<id>', 'session id or name')
    .argument('<path>', 'absolute path in the session')
    .action(async (id: string, p: string, _f: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const entries = await ctx.client().browsers.fs.listFiles(id, { path: p });
      ctx.out.result(entries, () =>
        printTable(
          ['MODE', 'SIZE', 'MODIFIED', 'NAME'],
          entries.map((e) => [e.mode, e.size_bytes, e.mod_time, e.is_dir ? `${e.name}/` : e.name]),
        ),
      );
    });

  fsCmd
    .command('cat')
    .description("write a file's content to stdout")
    .argument('<id>', 'session id or name')
    .argument('<path>', 'absolute path in the session')
    .action(async (id: string, p: string, _f: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const res = await ctx.client().browsers.fs.readFile(id, { path: p });
      const bytes = Buffer.from(await res.arrayBuffer());
      // JSON cannot carry arbitrary bytes: text when it is UTF-8, else base64.
      const text = bytes.toString('utf8');
      const utf8 = Buffer.from(text, 'utf8').equals(bytes);
      ctx.out.result(utf8 ? { path: p, content: text } : { path: p, content_b64: bytes.toString('base64') }, () => process.stdout.write(bytes));
    });

  fsCmd
    .command('write')
    .description('write a file from --from FILE or stdin')
    .argument('<id>', 'session id or name')
    .argument('<path>', 'absolute path in the session')
    .option('--from <file>', 'local file to upload (default: stdin)')
    .option('--mode <octal>', 'file mode, e.g. 0644')
    .action(async (id: string, p: string, f: { from?: string; mode?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const content = f.from ? fs.readFileSync(f.from) : await readStdin();
      await ctx.client().browsers.fs.writeFile(id, content, { path: p, mode: f.mode });
      ctx.out.result({ path: p, bytes: content.length }, () => process.stdout.write(`wrote ${content.length} bytes to ${p}\n`));
    });

  fsCmd
    .command('rm')
    .description('delete a file (or, with -r, a directory)')
    .argument('<id>', 'session id or name')
    .argument('<path>', 'absolute path in the session')
    .option('-r, --recursive', 'delete a directory and what it holds')
    .action(async (id: string, p: string, f: { recursive?: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      if (f.recursive) await ctx.client().browsers.fs.deleteDirectory(id, { path: p });
      else await ctx.client().browsers.fs.deleteFile(id, { path: p });
      ctx.out.result({ deleted: p }, () => process.stdout.write(`deleted ${p}\n`));
    });

  fsCmd
    .command('mkdir')
    .description('create a directory (and its parents)')
    .argument('<id>', 'session id or name')
    .argument('<path>', 'absolute path in the session')
    .option('--mode <octal>', 'directory mode, e.g. 0755')
    .action(async (id: string, p: string, f: { mode?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      await ctx.client().browsers.fs.createDirectory(id, { path: p, mode: f.mode });
      ctx.out.result({ created: p }, () => process.stdout.write(`created ${p}\n`));
    });
}
