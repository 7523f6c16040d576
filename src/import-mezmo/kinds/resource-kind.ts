import { ApiError } from '../../http/errors.js';
import { AuditTrail } from '../../audit/audit-trail.js';
import type { ConfigKysely } from '../../repository/open.js';
import { Categories } from '../../views/categories.js';
import { Presets } from '../../views/presets.js';
import { Views } from '../../views/views.js';
import { Groups } from '../../people/groups.js';
import { Members } from '../../people/members.js';
import { type MezmoSource } from '../source.js';

/*
 * What every kind of configuration the importer carries has in common: the local side it writes
 * to, the shape of a kind (read, match, check, create, update), and the helpers they share.
 */

/** Who the audit trail names for what the importer writes. */
export const IMPORTER = 'operator (import-mezmo)';

export type SourceItem = Record<string, unknown>;

/** The organisation receiving the configuration, through the same stores the API routes use. */
export class LocalConfig {
  readonly views: Views;
  readonly presets: Presets;
  readonly categories: Categories;
  readonly groups: Groups;
  readonly members: Members;
  readonly audit: AuditTrail;

  constructor(
    readonly db: ConfigKysely,
    readonly account: string,
    /** Where new members' one-time links point, and for how long they work. */
    readonly links: { publicUrl: string; inviteHours: number },
  ) {
    this.views = new Views(db);
    this.presets = new Presets(db);
    this.categories = new Categories(db);
    this.groups = new Groups(db);
    this.members = new Members(db);
    this.audit = new AuditTrail(db);
  }

  record(resource: string, action: 'create' | 'update', id: string, before: unknown, after: unknown): Promise<void> {
    return this.audit.record(this.account, { actor: IMPORTER, address: '', action: `${resource}.${action}`, resource, id, before: before ?? null, after });
  }
}

/** Something in the source that is not carried over: a whole item, or (with `part`) a piece of one. */
export interface NotCarried {
  kind: string;
  name: string;
  part?: string;
  reason: string;
}

/** What an applied write gives back for the report: a new member's password link. */
export interface Applied {
  link?: { email: string; link: string };
}

/** What a kind's `check` learns from the other kinds' source items and plans. */
export interface PlanContext {
  local: LocalConfig;
  /** Every kind's source items, read before planning. */
  source: Map<string, SourceItem[]>;
  /** Natural keys (normalised) of items of each kind that exist locally or will be created. */
  willExist: Map<string, Set<string>>;
}

/** A refusal of a whole item, with its reason. */
export class NotCarriedOver extends Error {}

/**
 * One kind of configuration the importer carries: where it is read in the source, how an item is
 * named (its natural key, by which a second run finds what the first created), how it is checked
 * (with the API routes' own validation) and written. `check` throws to refuse the whole item
 * (NotCarriedOver, or the routes' ApiError) and calls `partly` for pieces left behind.
 */
export interface ResourceKind<Input = unknown> {
  kind: string;
  /** Fields of a source item that are read, or known to be the source's own bookkeeping; any other is reported. */
  fields: { carried: string[]; ignored: string[] };
  read(source: MezmoSource): Promise<SourceItem[]>;
  /** Local items of the organisation by natural key, with the local id. */
  readLocal(local: LocalConfig): Promise<Map<string, string>>;
  /** The natural key, normalised for matching, and the name the plan shows. */
  key(item: SourceItem): { key: string; name: string } | undefined;
  check(item: SourceItem, context: PlanContext, partly: (part: string, reason: string) => void): Promise<Input> | Input;
  create(input: Input, local: LocalConfig): Promise<Applied | void>;
  /** Whether the existing local item already holds what the source has: the plan then keeps it, and nothing is written. */
  unchanged?: (id: string, input: Input, local: LocalConfig) => Promise<boolean>;
  /** Brings an existing local item in line; undefined: there is nothing to change for this kind. */
  update: ((id: string, input: Input, local: LocalConfig) => Promise<Applied | void>) | undefined;
}

/** JSON with object keys sorted, to compare stored values whatever order their keys were written in. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().filter((key) => (value as Record<string, unknown>)[key] !== undefined).map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** A refusal by the API's own validation, as one line: its message and each detail. */
export function reasonOf(error: unknown): string {
  if (error instanceof ApiError) {
    const details = (error.body as { details?: Array<{ message: string }> }).details;
    return details?.length ? details.map((detail) => detail.message).join('; ') : error.body.error;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Reports fields of a source item that the kind neither carries nor knows to be bookkeeping. */
export function unknownFields(kind: ResourceKind, item: SourceItem): string[] {
  return Object.keys(item).filter((field) => !kind.fields.carried.includes(field) && !kind.fields.ignored.includes(field));
}
