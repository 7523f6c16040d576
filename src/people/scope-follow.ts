import type { AccessScope } from '../query/access-scope.js';
import type { ConfigKysely } from '../repository/open.js';
import type { Members } from './members.js';

/** Where views are told a member's scope changed (views/views.ts). */
export interface ScopedViews {
  followScope(memberId: string, scope: AccessScope): Promise<void>;
  /** The people of an organisation changed (scopes, removals): its alert rules read their channels' setters again. */
  peopleChanged(account: string): Promise<void>;
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

  /** One member's groups changed: their views follow, and their organisation's tails are told. */
  async member(memberId: string): Promise<void> {
    await this.following([memberId]);
  }

  /**
   * A member of `account` was removed: the channels they set are held and the tails they opened
   * end, from now on at this node (and at others at their next reload of the rules, within a second).
   */
  async removed(account: string): Promise<void> {
    // The tails first: telling them costs nothing, while the alert rules are read again.
    this.accessChanged(account);
    await this.views.peopleChanged(account);
  }

  /** The members of a group, by id: read before the group changes or goes, then passed to `allOf`. */
  async membersOf(groupId: string): Promise<string[]> {
    return (await this.db.selectFrom('group_members').select('member_id').where('group_id', '=', groupId).execute()).map((row) => row.member_id);
  }

  /**
   * A group's scope changed or the group went: each member's views follow, and the tails are told
   * once per organisation (not once per member, which would make each open tail check its opener
   * again for every member).
   */
  async allOf(memberIds: string[]): Promise<void> {
    await this.following(memberIds);
  }

  /**
   * The change is already saved when this runs, so the tails are told in `finally`: a member
   * whose views fail to follow must not leave the open tails on the old scope until their next
   * periodic check.
   */
  private async following(memberIds: string[]): Promise<void> {
    const changed = new Set<string>();
    try {
      for (const id of memberIds) {
        const access = await this.people.access(id);
        if (!access) continue;
        changed.add(access.account);
        await this.views.followScope(id, access.scope);
      }
    } finally {
      // The tails first, at once; then the alert rules, which read every view's setters again.
      for (const account of changed) this.accessChanged(account);
      for (const account of changed) await this.views.peopleChanged(account);
    }
  }
}
