import { UnknownOrganisation } from '../accounts/accounts.js';
import type { ConfigKysely } from '../repository/open.js';
import { type Applied, LocalConfig, type NotCarried, NotCarriedOver, type PlanContext, RESOURCE_KINDS, type ResourceKind, type SourceItem, reasonOf, unknownFields } from './kinds/index.js';
import { type MezmoSource, SourceReadError } from './source.js';

export interface PlannedItem {
  kind: string;
  name: string;
  action: 'create' | 'update' | 'keep';
}

/** The plan, printed before anything is written (and alone with --dry-run). */
export interface Plan {
  source: string;
  account: string;
  create: PlannedItem[];
  update: PlannedItem[];
  /** Already there as the source has it: nothing is written. */
  keep: PlannedItem[];
  notCarriedOver: NotCarried[];
}

export interface ImportResult {
  created: number;
  updated: number;
  /** Items the plan carried whose write failed, with why; nothing of them was written. */
  failed: NotCarried[];
  /** One-time links for the members created: they choose their password there. */
  links: Array<{ email: string; link: string }>;
}

interface Step {
  item: PlannedItem;
  run: () => Promise<Applied | void>;
}

/** Reads the source, checks every item with the API's own rules, and matches it to the local organisation. */
export async function planImport(source: MezmoSource, db: ConfigKysely, account: string, links: { publicUrl: string; inviteHours: number }) {
  const organisation = await db.selectFrom('accounts').select('account').where('account', '=', account).executeTakeFirst();
  if (!organisation) throw new UnknownOrganisation(account);
  const local = new LocalConfig(db, account, links);
  const plan: Plan = { source: source.url, account, create: [], update: [], keep: [], notCarriedOver: [] };
  const context: PlanContext = { local, source: new Map(), willExist: new Map() };
  const unreadable = new Set<string>();
  for (const kind of RESOURCE_KINDS) {
    try {
      context.source.set(kind.kind, await kind.read(source));
    } catch (error) {
      if (!(error instanceof SourceReadError)) throw error;
      unreadable.add(kind.kind);
      plan.notCarriedOver.push({ kind: kind.kind, name: '*', reason: `the source could not be read: ${error.message}` });
    }
  }
  const steps: Step[] = [];
  for (const kind of RESOURCE_KINDS) {
    if (unreadable.has(kind.kind)) continue;
    steps.push(...(await planKind(kind, context, plan)));
  }
  return { plan, steps, local };
}

async function planKind(kind: ResourceKind, context: PlanContext, plan: Plan): Promise<Step[]> {
  const { local } = context;
  const existing = await kind.readLocal(local);
  const willExist = new Set(existing.keys());
  context.willExist.set(kind.kind, willExist);
  const seen = new Set<string>();
  const steps: Step[] = [];
  for (const item of context.source.get(kind.kind) ?? []) {
    const named = kind.key(item);
    if (!named) {
      plan.notCarriedOver.push({ kind: kind.kind, name: '?', reason: `it has no ${kind.fields.carried[0]}` });
      continue;
    }
    if (seen.has(named.key)) {
      plan.notCarriedOver.push({ kind: kind.kind, name: named.name, reason: `another ${kind.kind} in the source has the same name; ${kind.kind}s are matched by name` });
      continue;
    }
    seen.add(named.key);
    const parts: NotCarried[] = [];
    const partly = (part: string, reason: string) => parts.push({ kind: kind.kind, name: named.name, part, reason });
    let input: unknown;
    try {
      input = await kind.check(item, context, partly);
    } catch (error) {
      if (!(error instanceof NotCarriedOver) && !isRefusal(error)) throw error;
      plan.notCarriedOver.push({ kind: kind.kind, name: named.name, reason: reasonOf(error) });
      continue;
    }
    const fields = unknownFields(kind, item as SourceItem);
    if (fields.length) partly(fields.join(', '), `Logstead ${kind.kind}s have no such field${fields.length > 1 ? 's' : ''}`);
    plan.notCarriedOver.push(...parts);
    willExist.add(named.key);
    const id = existing.get(named.key);
    if (id === undefined) {
      const planned: PlannedItem = { kind: kind.kind, name: named.name, action: 'create' };
      plan.create.push(planned);
      steps.push({ item: planned, run: () => kind.create(input, local) });
    } else if (kind.update && !(kind.unchanged && (await kind.unchanged(id, input, local)))) {
      const update = kind.update;
      const planned: PlannedItem = { kind: kind.kind, name: named.name, action: 'update' };
      plan.update.push(planned);
      steps.push({ item: planned, run: () => update(id, input, local) });
    } else {
      plan.keep.push({ kind: kind.kind, name: named.name, action: 'keep' });
    }
  }
  return steps;
}

/** What the routes' validation throws (ApiError with a 4xx): the item is refused, not the import. */
function isRefusal(error: unknown): boolean {
  const status = (error as { statusCode?: unknown })?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/** Writes the plan's steps in order; each item is written whole or not at all. */
export async function applyPlan(steps: Step[]): Promise<ImportResult> {
  const result: ImportResult = { created: 0, updated: 0, failed: [], links: [] };
  for (const step of steps) {
    try {
      const applied = await step.run();
      if (step.item.action === 'create') result.created++;
      else result.updated++;
      if (applied && applied.link) result.links.push(applied.link);
    } catch (error) {
      if (!isRefusal(error)) throw error;
      result.failed.push({ kind: step.item.kind, name: step.item.name, reason: reasonOf(error) });
    }
  }
  return result;
}
