import type { Session } from '../api-client/client.js';
import { mayAdminister } from '../session/roles.js';
import { SETTINGS_SECTIONS, type SettingsSection } from '../navigation/routes.js';

/**
 * What each settings page is called, and whether only an admin may open it. The server refuses
 * those routes to lower roles anyway (src/http/permissions.ts); the menu does not offer them.
 */
export const SECTION_INFO: Record<SettingsSection, { label: string; adminOnly: boolean; about: string }> = {
  members: { label: 'Members and groups', adminOnly: true, about: 'who may do what, and which lines each group sees' },
  keys: { label: 'Keys', adminOnly: true, about: 'ingestion and service keys' },
  parsing: { label: 'Parsing', adminOnly: false, about: 'custom rules that extract fields from lines' },
  exclusions: { label: 'Exclusions', adminOnly: false, about: 'rules that keep lines out of the store' },
  archive: { label: 'Archive', adminOnly: true, about: 'where lines are archived, and the archiver’s progress' },
  usage: { label: 'Usage', adminOnly: false, about: 'lines and bytes per day, the largest apps and hosts' },
  audit: { label: 'Audit', adminOnly: true, about: 'who changed what, and when' },
};

/** The settings pages a reader may open, in the menu's order. */
export function sectionsFor(session: Pick<Session, 'role'>): SettingsSection[] {
  const admin = mayAdminister(session);
  return SETTINGS_SECTIONS.filter((section) => admin || !SECTION_INFO[section].adminOnly);
}
