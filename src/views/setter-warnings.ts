import type { AccessScope } from '../query/access-scope.js';
import { compileQueryWithin } from '../query/compile.js';
import type { LogStore } from '../store/log-store.js';
import type { ViewWarning } from '../wire/types.js';
import { type SetterLookup, legacySetter } from './setters.js';
import type { View, ViewFilters } from './views.js';

/** How many of the last day's lines of an organisation match a view's filters inside every one of `scopes`. */
export type ViewVolume = (account: string, filters: ViewFilters, scopes: AccessScope[]) => Promise<number>;

/**
 * What a view's own alerts will not send because of who set their targets (issue 39), so that an
 * alert never goes quiet without saying why: a channel whose setter is gone is held; one that may
 * carry none of the view's lines of the last day that the reader sees (the scopes of the view's
 * saver and of the target's setter leave none) sends nothing while that lasts. Counting only what
 * the reader may see, the warning tells a scoped reader nothing of lines outside their scope.
 */
export async function setterWarnings(view: View, setters: SetterLookup, volume: ViewVolume, readerScope: AccessScope): Promise<ViewWarning[]> {
  const warnings: ViewWarning[] = [];
  let seen: Promise<number> | undefined;
  for (const [index, channel] of view.channels.entries()) {
    const standing = await setters.standing(channel.setBy ?? legacySetter(view.savedBy));
    if (standing.held) {
      warnings.push({ channel: index, code: 'setter-removed', message: standing.held });
      continue;
    }
    seen ??= volume(view.account, view.filters, [readerScope]);
    if ((await seen) === 0 || (await volume(view.account, view.filters, [view.accessScope, standing.scope])) > 0) continue;
    const who = standing.shown && 'email' in standing.shown ? standing.shown.email : 'its setter';
    warnings.push({
      channel: index,
      code: 'setter-sees-none',
      message: `This alert sends only lines that ${who}, who set its target, and the view's last saver may both see, and none of this view's lines of the last day are such; it sends nothing while that lasts.`,
    });
  }
  return warnings;
}

const DAY_MS = 86_400_000;

/** ViewVolume over the store: a view's last day of lines, counted by the engine inside the scopes. */
export function lastDayOfView(store: Pick<LogStore, 'volume'>, now: () => number): ViewVolume {
  return async (account, filters, scopes) => {
    const toMs = now();
    const filter = { account, fromMs: toMs - DAY_MS, toMs, hosts: filters.hosts, apps: filters.apps, levels: filters.levels?.map((level) => level.toUpperCase()), tags: filters.tags };
    return (await store.volume({ ...filter, condition: compileQueryWithin(filters.query ?? '', scopes) })).lines;
  };
}
