/**
 * A custom proxy's `ca_bundle` (Kernel 0.85): the PEM certificates its sessions' browsers trust,
 * stored only as ciphertext like the password (domain/proxies/proxies.ts, secret-cipher.ts).
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function proxyCaBundleMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('proxies').addColumn('ca_bundle_enc', 'text').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('proxies').dropColumn('ca_bundle_enc').execute();
    },
  };
}
