import { Sessions } from '../../http/sessions.js';
import { answeringRefusals } from '../../people/access-answer.js';
import { passwordLink } from '../../people/invitations.js';
import { parseMemberCreate } from '../../people/member-routes.js';
import { normaliseEmail } from '../../people/members.js';
import { OneTimeLinks } from '../../people/one-time-links.js';
import { ScopeFollower } from '../../people/scope-follow.js';
import { type ResourceKind, canonical, text } from './resource-kind.js';

interface MemberInput {
  email: string;
  role: 'admin' | 'member' | 'readonly';
  /** Names of local groups. */
  groups: string[];
}

export const members: ResourceKind<MemberInput> = {
  kind: 'member',
  fields: { carried: ['email', 'role', 'groups'], ignored: ['id', 'account', 'active', 'lastSignIn', 'created', 'modified', 'name', '_created', '_modified'] },
  read: (source) => source.list('/v1/config/members'),
  async readLocal(local) {
    return new Map((await local.members.list(local.account)).map((member) => [member.email, member.email]));
  },
  key: (item) => (text(item.email)?.trim() ? { key: normaliseEmail(text(item.email)!), name: normaliseEmail(text(item.email)!) } : undefined),
  check(item, context, partly) {
    let role = text(item.role)?.trim().toLowerCase();
    if (role === 'owner') {
      partly('role owner', 'an owner is made by an operator (`logstead member add <account> <email> --role owner`); imported as admin');
      role = 'admin';
    }
    // A source names groups by id (Logstead, Mezmo) or by name: both are looked up among the source's groups.
    const sourceGroups = context.source.get('group') ?? [];
    const names: string[] = [];
    for (const ref of Array.isArray(item.groups) ? item.groups : []) {
      const group = sourceGroups.find((candidate) => candidate.id === ref || candidate.groupId === ref) ?? sourceGroups.find((candidate) => candidate.name === ref);
      const name = text(group?.name)?.trim() ?? (typeof ref === 'string' ? ref : JSON.stringify(ref));
      if (context.willExist.get('group')?.has(name)) names.push(name);
      else partly(`group "${name}"`, 'the source did not list this group, or it is not carried over');
    }
    const checked = parseMemberCreate({ email: item.email, role, groups: names });
    return { email: checked.email, role: checked.role, groups: checked.groups };
  },
  async create(input, local) {
    const groupIds = (await local.groups.resolve(local.account, input.groups)).ids;
    const row = await local.members.create(local.account, { email: input.email, role: input.role, groups: groupIds });
    const after = await local.members.get(local.account, row.email);
    await local.record('member', 'create', row.email, null, after);
    // No invitation e-mail: the operator hands out the link, as `logstead member add` prints it.
    const token = await new OneTimeLinks(local.db).issue(local.account, 'invite', row.id, local.links.inviteHours * 3_600_000);
    return { link: { email: row.email, link: passwordLink(local.links.publicUrl, token) } };
  },
  async unchanged(email, input, local) {
    const member = await local.members.get(local.account, email);
    if (!member) return false;
    const { ids, unknown } = await local.groups.resolve(local.account, input.groups);
    const sameRole = member.role === 'owner' || member.role === input.role;
    return sameRole && unknown.length === 0 && canonical([...member.groups].sort()) === canonical([...ids].sort());
  },
  async update(email, input, local) {
    const before = await local.members.row(local.account, email);
    if (!before) return;
    const groupIds = (await local.groups.resolve(local.account, input.groups)).ids;
    // A local owner stays one: only an operator changes an owner's role.
    const role = before.role === 'owner' ? undefined : input.role;
    const beforeSummary = await local.members.get(local.account, email);
    const updated = await answeringRefusals({ role: 'owner', scope: null }, () => local.members.update(local.account, email, { role, groups: groupIds }, { by: 'owner' }));
    if (updated?.demoted) await new Sessions(local.db).endForMember(before.id);
    await new ScopeFollower(local.db, local.members, local.views).member(before.id);
    await local.record('member', 'update', before.email, beforeSummary, updated?.member);
  },
};
