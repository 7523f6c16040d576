import type { ConfigKysely } from './open.js';

/** How many nodes can hold distinct slots at once (line ids carry three digits of it). */
export const NODE_SLOTS = 1000;

/**
 * This node's slot: a number from 0 to 999 that names it in line ids, delivery claims and
 * /healthz. One node alone is slot 0; nodes sharing the configuration each take the next number
 * of its shared count of node starts, so nodes running at once never share one.
 */
export async function claimNodeSlot(db: ConfigKysely, shared: boolean): Promise<number> {
  if (!shared) return 0;
  const row = await db.insertInto('node_starts').values({ started_at: Date.now() }).returning('id').executeTakeFirstOrThrow();
  return Number(row.id) % NODE_SLOTS;
}
