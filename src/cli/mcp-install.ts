/**
 * Adds (or replaces) one server entry in an MCP client's config file and keeps everything else
 * in it: JSON files are rewritten from their parsed content, Goose's YAML through the `yaml`
 * library's document model, which keeps its comments and order. A file that does not parse is
 * left alone (an error that names it), never overwritten.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { CliError } from './cli-error.js';
import { entryFor, type ServerCommand, type Target } from './mcp-targets.js';

export function installServer(target: Target, file: string, name: string, command: ServerCommand): Record<string, unknown> {
  const { section, entry } = entryFor(target, name, command);
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  let out: string;
  if (target === 'goose') {
    const doc = text.trim() ? YAML.parseDocument(text) : new YAML.Document({});
    if (doc.errors.length) throw new CliError(`cannot read ${file} as YAML (${doc.errors[0].message.split('\n')[0]}): fix it or pass --config-path`);
    doc.setIn([section, name], doc.createNode(entry));
    out = doc.toString();
  } else {
    let config: Record<string, unknown> = {};
    if (text.trim()) {
      try {
        config = JSON.parse(text) as Record<string, unknown>;
      } catch (err) {
        throw new CliError(`cannot read ${file} as JSON (${(err as Error).message}): fix it or pass --config-path`);
      }
    }
    const servers = config[section] && typeof config[section] === 'object' ? (config[section] as Record<string, unknown>) : {};
    config[section] = { ...servers, [name]: entry };
    out = JSON.stringify(config, null, 2) + '\n';
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, out);
  return entry;
}
