/**
 * The viewer's pages and their addresses. Each page has its own path, so a link or a reload opens
 * the same page; the search keeps its state in the query string of `/` (search/url-state.ts).
 * Pure: the history hook (useRoute.ts) and the tests use the same matching.
 */

/** The settings pages, in the order the settings menu lists them. */
export const SETTINGS_SECTIONS = ['members', 'keys', 'parsing', 'exclusions', 'archive', 'usage', 'audit'] as const;
export type SettingsSection = (typeof SETTINGS_SECTIONS)[number];

export type Route =
  | { page: 'search' }
  | { page: 'boards' }
  | { page: 'board'; boardId: string }
  /** `/settings` alone names no section: the shell opens the first one the reader may use. */
  | { page: 'settings'; section: SettingsSection | null }
  | { page: 'unknown'; path: string };

/** The path's segments, decoded; a segment that does not decode (a stray %) makes the path unknown. */
function segmentsOf(pathname: string): string[] | null {
  try {
    return pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return null;
  }
}

export function matchRoute(pathname: string): Route {
  const parts = segmentsOf(pathname);
  const unknown: Route = { page: 'unknown', path: pathname };
  if (parts === null) return unknown;
  const [first, second, ...rest] = parts;
  if (rest.length) return unknown;
  if (first === undefined) return { page: 'search' };
  if (first === 'boards') return second === undefined ? { page: 'boards' } : { page: 'board', boardId: second };
  if (first === 'settings') {
    if (second === undefined) return { page: 'settings', section: null };
    return (SETTINGS_SECTIONS as readonly string[]).includes(second) ? { page: 'settings', section: second as SettingsSection } : unknown;
  }
  return unknown;
}

/** The address of a page (the search's own query string is added by the caller that has it). */
export function pathOf(route: Route): string {
  switch (route.page) {
    case 'search':
      return '/';
    case 'boards':
      return '/boards';
    case 'board':
      return `/boards/${encodeURIComponent(route.boardId)}`;
    case 'settings':
      return route.section ? `/settings/${route.section}` : '/settings';
    case 'unknown':
      return route.path;
  }
}

/** Which item of the main navigation a page belongs to. */
export function navItemOf(route: Route): 'search' | 'boards' | 'settings' | null {
  if (route.page === 'board') return 'boards';
  if (route.page === 'unknown') return null;
  return route.page;
}

/** A click that the browser should handle itself: a new tab or window, a download, another button. */
export function opensElsewhere(event: { button: number; metaKey: boolean; ctrlKey: boolean; shiftKey: boolean; altKey: boolean }): boolean {
  return event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey;
}
