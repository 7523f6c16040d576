import { AuditTrail } from '../audit/audit-trail.js';
import { UnknownOrganisation } from '../accounts/accounts.js';
import { ROLES, type Role } from '../http/permissions.js';
import { Sessions } from '../http/sessions.js';
import type { ConfigKysely } from '../repository/open.js';
import { askServerForPublicUrl } from '../http/control-socket.js';
import { listeningUrl } from '../http/web-server.js';
import type { Settings } from '../settings.js';
import { AccessChangeError } from './access-guard.js';
import { passwordLink } from './invitations.js';
import { MemberError, Members, normaliseEmail } from './members.js';
import { OneTimeLinks } from './one-time-links.js';

/** The actor the audit trail names for changes made on the server's own machine. */
export const OPERATOR = 'operator (command line)';

export class MemberCommandError extends Error {}

export interface LinkSettings {
  publicUrl: string;
  inviteHours: number;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** Where a printed link's address came from, as the command says on stderr. */
export type LinkAddressSource = 'LOGSTEAD_PUBLIC_URL' | 'the running server' | 'LOGSTEAD_HOST and LOGSTEAD_PORT (no server answered)';

/**
 * The address one-time links point at: this command's LOGSTEAD_PUBLIC_URL when set; otherwise the
 * running server's own (its LOGSTEAD_PUBLIC_URL, or the address it listens on), asked through the
 * data directory's control socket as `logstead backup` asks it, since the server may have been
 * started with another port or host than this command's environment says; with no server
 * answering, the address the settings here would listen on.
 */
export async function linkAddress(settings: Pick<Settings, 'publicUrl' | 'host' | 'port' | 'dataDir'>): Promise<{ publicUrl: string; from: LinkAddressSource }> {
  if (settings.publicUrl) return { publicUrl: settings.publicUrl, from: 'LOGSTEAD_PUBLIC_URL' };
  const answer = await askServerForPublicUrl(settings.dataDir).catch(() => ({ running: false }) as const);
  if (answer.running && answer.status === 200 && typeof answer.body?.publicUrl === 'string') return { publicUrl: answer.body.publicUrl, from: 'the running server' };
  return { publicUrl: listeningUrl(settings.host, settings.port), from: 'LOGSTEAD_HOST and LOGSTEAD_PORT (no server answered)' };
}

/**
 * `logstead member add <account> <email> --role <role>`: for operators, who own the machine, so
 * `owner` may be given here. A new member gets an invitation link, an existing one their new role
 * and a reset link; either way the link is printed, as the e-mail would carry it.
 */
export async function addMember(db: ConfigKysely, input: { account: string; email: string; role: string }, settings: LinkSettings) {
  if (!(ROLES as readonly string[]).includes(input.role)) throw new MemberCommandError(`--role must be one of ${ROLES.join(', ')}, not "${input.role}".`);
  if (!EMAIL.test(input.email.trim())) throw new MemberCommandError(`"${input.email}" is not an e-mail address.`);
  const role = input.role as Role;
  const organisation = await db.selectFrom('accounts').select('account').where('account', '=', input.account).executeTakeFirst();
  if (!organisation) throw new UnknownOrganisation(input.account);
  const members = new Members(db);
  const before = await members.get(input.account, input.email);
  let purpose: 'invite' | 'reset' = 'invite';
  if (before) {
    purpose = 'reset';
    try {
      // An operator acts as an owner; the organisation still keeps an owner who sees every line.
      await members.update(input.account, input.email, { role }, { by: 'owner' });
    } catch (error) {
      if (error instanceof MemberError || error instanceof AccessChangeError) throw new MemberCommandError(error.message);
      throw error;
    }
  } else {
    await members.create(input.account, { email: input.email, role, groups: [] });
  }
  const row = (await members.row(input.account, input.email))!;
  if (before && before.role !== role) await new Sessions(db).endForMember(row.id);
  const token = await new OneTimeLinks(db).issue(input.account, purpose, row.id, settings.inviteHours * 3_600_000);
  const after = await members.get(input.account, input.email);
  await new AuditTrail(db).record(input.account, { actor: OPERATOR, address: '', action: before ? 'member.update' : 'member.create', resource: 'member', id: row.email, before: before ?? null, after });
  return { account: input.account, email: row.email, role, link: passwordLink(settings.publicUrl, token) };
}

/** `logstead member reset-link <email> [--account <id>]`: a one-time link to choose a new password, for a server without mail. */
export async function resetLink(db: ConfigKysely, input: { email: string; account?: string }, settings: LinkSettings) {
  const found = (await new Members(db).withEmail(input.email)).filter((member) => input.account === undefined || member.account === input.account);
  if (found.length === 0) throw new MemberCommandError(`No member has the e-mail "${normaliseEmail(input.email)}"${input.account ? ` in ${input.account}` : ''}.`);
  if (found.length > 1) {
    throw new MemberCommandError(`"${normaliseEmail(input.email)}" is a member of several organisations (${found.map((member) => member.account).join(', ')}); choose one with --account.`);
  }
  const [member] = found;
  const token = await new OneTimeLinks(db).issue(member.account, 'reset', member.id, settings.inviteHours * 3_600_000);
  return { account: member.account, email: member.email, link: passwordLink(settings.publicUrl, token) };
}
