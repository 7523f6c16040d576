import type { ConfigKysely } from '../repository/open.js';
import type { SecretBox } from '../repository/secret-box.js';

/** The integrations archived to: S3 and the stores that speak its API. */
export const ARCHIVE_INTEGRATIONS = ['s3', 'ibm', 'dos'] as const;
export type ArchiveIntegration = (typeof ARCHIVE_INTEGRATIONS)[number];

/** The archive configuration as the API shows it (Mezmo's field names): never the secret key. */
export interface ArchiveConfigView {
  integration: ArchiveIntegration;
  bucket: string;
  endpoint?: string;
  region?: string;
  accesskey: string;
  forcepathstyle: boolean;
}

/** What an admin sends; `secretkey` is write-only. */
export interface ArchiveConfigInput extends ArchiveConfigView {
  secretkey: string;
}

/** A configuration with its secret opened, for the archiver and the credential check only. */
export interface ArchiveTarget extends ArchiveConfigInput {
  account: string;
  /** When archiving was configured: lines that arrived before are not archived. */
  configuredAt: number;
}

/** The sealed secret names its use, so it opens as nothing else (repository/secret-box.ts). */
const SECRET_PURPOSE = 'archive secretkey';

/** Each organisation's archive configuration, in the configuration database. */
export class ArchiveConfigs {
  constructor(
    private readonly db: ConfigKysely,
    private readonly box: SecretBox,
  ) {}

  async view(account: string): Promise<ArchiveConfigView | undefined> {
    const target = await this.target(account);
    if (!target) return undefined;
    const { integration, bucket, endpoint, region, accesskey, forcepathstyle } = target;
    return { integration, bucket, ...(endpoint ? { endpoint } : {}), ...(region ? { region } : {}), accesskey, forcepathstyle };
  }

  async target(account: string): Promise<ArchiveTarget | undefined> {
    const row = await this.db.selectFrom('archive_configs').selectAll().where('account', '=', account).executeTakeFirst();
    if (!row) return undefined;
    return {
      account,
      integration: row.integration as ArchiveIntegration,
      bucket: row.bucket,
      endpoint: row.endpoint ?? undefined,
      region: row.region ?? undefined,
      accesskey: row.access_key,
      secretkey: this.box.open(row.secret_sealed, SECRET_PURPOSE),
      forcepathstyle: row.force_path_style === 1,
      configuredAt: Number(row.configured_at),
    };
  }

  /** Every organisation that archives. */
  async accounts(): Promise<string[]> {
    return (await this.db.selectFrom('archive_configs').select('account').execute()).map((row) => row.account);
  }

  /**
   * Creates the configuration, or replaces the bucket and credentials of one (archiving goes on
   * from where it was: `configured_at` and the archiver's position stay). False when creating
   * finds one already there, or replacing finds none.
   */
  async save(account: string, input: ArchiveConfigInput, now: number, mode: 'create' | 'replace'): Promise<boolean> {
    const fields = {
      integration: input.integration,
      bucket: input.bucket,
      endpoint: input.endpoint ?? null,
      region: input.region ?? null,
      access_key: input.accesskey,
      secret_sealed: this.box.seal(input.secretkey, SECRET_PURPOSE),
      force_path_style: input.forcepathstyle ? 1 : 0,
      updated_at: now,
    };
    if (mode === 'replace') {
      const result = await this.db.updateTable('archive_configs').set(fields).where('account', '=', account).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    }
    const result = await this.db
      .insertInto('archive_configs')
      .values({ account, ...fields, configured_at: now, passed_to: now, eligible_before: 0 })
      .onConflict((conflict) => conflict.column('account').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /**
   * Ends archiving: the configuration goes, and so do the files not yet written (their lines will
   * not be archived, as lines arriving from now on are not); what was written stays recorded.
   */
  async remove(account: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx.deleteFrom('archive_configs').where('account', '=', account).executeTakeFirst();
      await trx.deleteFrom('archive_files').where('account', '=', account).where('status', '=', 'pending').execute();
      return Number(result.numDeletedRows) > 0;
    });
  }
}
