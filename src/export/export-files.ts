import { randomBytes } from 'node:crypto';
import type { ConfigKysely } from '../repository/open.js';

/**
 * E-mailed export files and the secret that signs their links. Both live in the configuration
 * database, so whichever node a download request reaches finds them.
 */
export class ExportFiles {
  constructor(private readonly db: ConfigKysely) {}

  /**
   * A named 32-byte secret, made by whichever node asks first; every node gets the same one.
   * `initial` seeds it (an older data directory's key file, so its links keep working).
   */
  async secret(name: string, initial?: Buffer): Promise<Buffer> {
    const value = (initial ?? randomBytes(32)).toString('base64');
    await this.db.insertInto('secrets').values({ name, value }).onConflict((conflict) => conflict.column('name').doNothing()).execute();
    const row = await this.db.selectFrom('secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
    return Buffer.from(row.value, 'base64');
  }

  async saveExport(file: { id: string; account: string; content: Buffer; createdAt: number; expiresAt: number }): Promise<void> {
    await this.db
      .insertInto('export_files')
      .values({ id: file.id, account: file.account, content: file.content, created_at: file.createdAt, expires_at: file.expiresAt })
      .execute();
  }

  async readExport(id: string): Promise<Buffer | undefined> {
    const row = await this.db.selectFrom('export_files').select('content').where('id', '=', id).executeTakeFirst();
    return row ? Buffer.from(row.content) : undefined;
  }

  /** Removes export files whose links expired before `before`. */
  async sweepExports(before: number): Promise<void> {
    await this.db.deleteFrom('export_files').where('expires_at', '<', before).execute();
  }
}
