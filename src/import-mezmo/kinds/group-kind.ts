import { answeringRefusals } from '../../people/access-answer.js';
import { parseGroupCreate } from '../../people/group-routes.js';
import { ScopeFollower } from '../../people/scope-follow.js';
import { type ResourceKind, canonical, text } from './resource-kind.js';

interface GroupInput {
  name: string;
  access_scopes: unknown;
  apps: string[];
  hosts: string[];
}

export const groups: ResourceKind<GroupInput> = {
  kind: 'group',
  // apps and hosts come from a Logstead source (Mezmo's groups have none); dropping them would widen the group.
  fields: { carried: ['name', 'access_scopes', 'apps', 'hosts'], ignored: ['id', 'groupId', 'account', 'members', 'created', 'modified', '_created', '_modified', 'admits'] },
  read: (source) => source.list('/v1/config/groups'),
  async readLocal(local) {
    return new Map((await local.groups.list(local.account)).map((group) => [group.name.trim(), group.id]));
  },
  key: (item) => (text(item.name)?.trim() ? { key: text(item.name)!.trim(), name: text(item.name)!.trim() } : undefined),
  check: (item) => parseGroupCreate({ name: item.name, access_scopes: item.access_scopes ?? '', apps: item.apps ?? [], hosts: item.hosts ?? [] }),
  async create(input, local) {
    const created = await local.groups.create(local.account, input);
    await local.record('group', 'create', created.id, null, created);
  },
  async unchanged(id, input, local) {
    const group = await local.groups.get(local.account, id);
    return group !== undefined && canonical([group.access_scopes, group.apps, group.hosts]) === canonical([input.access_scopes, input.apps, input.hosts]);
  },
  async update(id, input, local) {
    const before = await local.groups.get(local.account, id);
    const scopes = new ScopeFollower(local.db, local.members, local.views);
    const members = await scopes.membersOf(id);
    // As an operator (an owner), but never letting a member see every line unasked: that item is refused.
    const change = { access_scopes: input.access_scopes, apps: input.apps, hosts: input.hosts };
    const after = await answeringRefusals({ role: 'owner', scope: null }, () => local.groups.update(local.account, id, change, { by: 'owner' }));
    // As a PATCH of the scope does: the views its members saved follow their new scope.
    await scopes.allOf(members);
    await local.record('group', 'update', id, before, after);
  },
};
