import { useCallback, useEffect, useState } from 'react';
import { ApiError, type Group, type Member, api } from '../api-client/client.js';
import { problemsOf } from '../views-alerts/channel-wire.js';

/** A refused call in words: each field's problem when the API names them, else its message. */
export const apiProblem = (error: unknown): string => (error instanceof ApiError ? problemsOf(error.body).join(' ') : String((error as Error).message ?? error));

/** The organisation's members and groups, read again after each change (a change to one shows in the other). */
export function usePeople() {
  const [members, setMembers] = useState<Member[]>([]);
  const [groups, setGroups] = useState<Group[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState('');
  const reload = useCallback(async () => {
    try {
      const [memberList, groupList] = await Promise.all([api.members(), api.groups()]);
      setMembers(memberList);
      setGroups(groupList);
      setError('');
    } catch (failure) {
      setError(apiProblem(failure));
    } finally {
      setLoaded(true);
    }
  }, []);
  useEffect(() => void reload(), [reload]);
  return { members, groups, loaded, error, reload };
}
