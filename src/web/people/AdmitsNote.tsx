import type { Group } from '../api-client/client.js';

const listed = (names: string[]) => (names.length ? names.join(', ') : 'none');

/**
 * What a group just saved lets through: the apps and hosts of the last day's lines (as the admin
 * who saved it sees them), so a word match that admits more than meant shows at once.
 */
export function AdmitsNote({ group }: { group: Group }) {
  if (!group.admits) return null;
  const { apps, hosts } = group.admits;
  return (
    <p className="muted" role="status" data-testid="group-admits">
      Saved “{group.name}”: in the last day it lets through apps: {listed(apps)}; hosts: {listed(hosts)}.
    </p>
  );
}
