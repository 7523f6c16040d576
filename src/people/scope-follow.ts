import type { AccessScope } from '../query/access-scope.js';
import type { ConfigKysely } from '../repository/open.js';
import type { Members } from './members.js';

/** Where views are told a member's scope changed (views/views.ts). */
export interface ScopedViews {
  followScope(memberId: string, scope: AccessScope): Promise<void>;
}

/**
 * Keeps the views a member saved inside that member's current scope, so that their alerts only
 * ever count and send lines the member may see: called after a change of a member's groups, or of
 * a group's scope. Reads come from the configuration database, so it holds at every node (alert
 * rules reload from it).
 */
export class ScopeFollower {
  constructor(
    private readonly db: ConfigKysely,
    private readonly people: Members,
    private readonly views: ScopedViews,
    /** Tells the open live tails (tail/hub.ts) that an organisation's scopes changed. */
    private readonly accessChanged: (account: string) => void = () => {},
  ) {}

  async member(memberId: string): Promise<void> {
    const access = await this.people.access(memberId);
    if (!access) return;
    await this.views.followScope(memberId, access.scope);
    this.accessChanged(access.account);
  }

  /** The members of a group, by id: read before the group changes or goes, then passed to `allOf`. */
  async membersOf(groupId: string): Promise<string[]> {
    return (await this.db.selectFrom('group_members').select('member_id').where('group_id', '=', groupId).execute()).map((row) => row.member_id);
  }

  async allOf(memberIds: string[]): Promise<void> {
    for (const id of memberIds) await this.member(id);
  }
}
