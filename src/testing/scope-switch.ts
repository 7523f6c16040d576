import assert from 'node:assert/strict';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().every((item, index) => item === [...b].sort()[index]);

export interface ScopeSwitch {
  /**
   * Sends one line for each of `apps`, reading `<word> <probe> <app>` with the given app, wherever
   * the test sends lines (another node, for a cluster).
   */
  send(probe: string): Promise<void>;
  /** Every line the open tail has received so far (export records). */
  received(): Array<Record<string, any>>;
  apps: string[];
  /** The apps the scope before the change lets through, and after it. */
  before: string[];
  after: string[];
  /** When the change was made (Date.now()). */
  changedAt: number;
  /** Distinguishes this switch's probes from any other's. */
  label: string;
  withinMs?: number;
}

/**
 * Watches an open tail take a new access scope. Probes (one line per app) are sent until one
 * arrives as the new scope lets it through; that probe must have been sent within `withinMs`
 * (5 s) of the change. Then, over every probe: each arrived exactly as the old scope or the new
 * one lets it through, or (in the instant a tail moves between subscriptions) not at all; every
 * probe sent after the first one under the new scope arrived under the new scope; and no line
 * outside both scopes ever arrived. Returns how long after the change the first such probe was sent.
 */
export async function awaitScopeSwitch(watch: ScopeSwitch): Promise<number> {
  const within = watch.withinMs ?? 5000;
  const sentAt = new Map<string, number>();
  const delivered = (probe: string) =>
    watch
      .received()
      .filter((line) => String(line._line).split(' ')[1] === probe)
      .map((line) => String(line._app));
  const firstUnderNewScope = () => [...sentAt.keys()].find((probe) => sameSet(delivered(probe), watch.after));
  const allowed = new Set([...watch.before, ...watch.after]);
  const noLineOutside = () => {
    for (const line of watch.received()) {
      if (!sentAt.has(String(line._line).split(' ')[1])) continue;
      assert.ok(allowed.has(line._app), `${watch.label}: LINE OUTSIDE BOTH SCOPES reached the tail: ${line._line} (app ${line._app})`);
    }
  };
  let probes = 0;
  let switched: string | undefined;
  while (switched === undefined) {
    noLineOutside();
    const now = Date.now();
    assert.ok(now - watch.changedAt <= within, `${watch.label}: the open tail had not taken the new scope (${watch.after.join(', ') || 'nothing'}) ${within} ms after the change`);
    const probe = `${watch.label}${probes++}`;
    sentAt.set(probe, now);
    await watch.send(probe);
    await sleep(150);
    switched = firstUnderNewScope();
  }
  // One more, surely under the new scope, then a moment for anything late.
  const last = `${watch.label}${probes++}`;
  sentAt.set(last, Date.now());
  await watch.send(last);
  const deadline = Date.now() + 3000;
  while (!sameSet(delivered(last), watch.after) && Date.now() < deadline) await sleep(25);
  await sleep(300);

  noLineOutside();
  for (const [probe, at] of sentAt) {
    const apps = delivered(probe);
    if (at > sentAt.get(switched)!) assert.ok(sameSet(apps, watch.after), `${watch.label}: probe ${probe}, sent after the new scope held, arrived as [${apps}], not [${watch.after}]`);
    else assert.ok(apps.length === 0 || sameSet(apps, watch.before) || sameSet(apps, watch.after), `${watch.label}: probe ${probe} arrived as [${apps}]: neither the old scope [${watch.before}] nor the new [${watch.after}]`);
  }
  return sentAt.get(switched)! - watch.changedAt;
}
