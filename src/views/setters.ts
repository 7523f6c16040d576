import { memberCredential, setterMember } from '../http/service-auth.js';
import type { AccessScope } from '../query/access-scope.js';
import type { Role } from '../wire/types.js';
import type { Channel } from './channels.js';

/** Where a setter's standing is read: a member's role and scope now, undefined once they are gone. */
export interface SetterDirectory {
  access(memberId: string): Promise<{ email: string; role: Role; scope: AccessScope } | undefined>;
}

/**
 * What a channel's setter may see now, which bounds what the channel carries (issue 39):
 * - `scope`: the setter's access scope (null: every line);
 * - `held`: why nothing is sent to the target, when the setter is gone (removed, or their
 *   organisation deactivated); an admin who takes the channel over becomes its setter;
 * - `shown`: the setter as the API shows it.
 */
export interface SetterStanding {
  scope: AccessScope;
  held: string | null;
  shown: { email: string } | { key: string } | { removed: true } | null;
}

export const SETTER_GONE =
  'The member who set this target was removed or can no longer sign in, so nothing is sent to it; an admin can take it over (POST …/alerts/{alertid}/takeover), which makes them its setter.';

/** A channel saved before setters were recorded, or imported by an operator: full rights. */
const UNRECORDED: SetterStanding = { scope: null, held: null, shown: null };

/**
 * Reads channels' setters, each member once per instance: make one for each load of rules or
 * each answer, so a change of a member's scope holds from the next one.
 */
export class SetterLookup {
  private readonly seen = new Map<string, Promise<SetterStanding>>();

  constructor(private readonly directory: SetterDirectory) {}

  standing(setBy: string | undefined): Promise<SetterStanding> {
    if (setBy === undefined) return Promise.resolve(UNRECORDED);
    let found = this.seen.get(setBy);
    if (!found) {
      found = this.read(setBy);
      this.seen.set(setBy, found);
    }
    return found;
  }

  /** A channel as the API shows it, with its setter and, when held, why. */
  async described(channel: Channel, shown: Record<string, unknown>): Promise<Record<string, unknown>> {
    const standing = await this.standing(channel.setBy);
    return { ...shown, setter: standing.shown, ...(standing.held ? { held: standing.held } : {}) };
  }

  private async read(setBy: string): Promise<SetterStanding> {
    const memberId = setterMember(setBy);
    // A key of full rights: what it sets up may carry every line, as the key itself may read them.
    if (memberId === null) return { scope: null, held: null, shown: { key: setBy } };
    const member = await this.directory.access(memberId);
    if (!member) return { scope: [], held: SETTER_GONE, shown: { removed: true } };
    return { scope: member.scope, held: null, shown: { email: member.email } };
  }
}

/** The setter a channel saved before setters were recorded stands for: its view's last saver. */
export const legacySetter = (savedBy: string | null): string | undefined => (savedBy === null ? undefined : memberCredential(savedBy));
