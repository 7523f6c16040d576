import { type ParsedLine, setField } from './parsed.js';

/** The program names Debian's cron logs under: `CRON` for jobs, `cron` for the daemon. */
export const CRON_APPS = new Set(['CRON', 'cron', 'crond']);

/**
 * Debian cron's syslog message, its header read by the caller: `(root) CMD (command)`, `(CRON)
 * INFO (pidfile fd = 3)`, `(root) RELOAD (crontabs/root)`. The user, the action and the command
 * (or, for other actions, the detail) become fields; pam_unix's session lines keep only `message`.
 */
export function asCron(parsed: ParsedLine): ParsedLine {
  const fields = parsed.fields ?? {};
  const message = typeof fields.message === 'string' ? fields.message : '';
  if (message[0] === '(') {
    const userEnd = message.indexOf(') ');
    const actionEnd = message.indexOf(' (', userEnd + 2);
    if (userEnd > 1 && actionEnd > userEnd + 2 && message.endsWith(')')) {
      setField(fields, 'user', message.slice(1, userEnd));
      const action = message.slice(userEnd + 2, actionEnd);
      setField(fields, 'action', action);
      setField(fields, action === 'CMD' ? 'command' : 'detail', message.slice(actionEnd + 2, -1));
    }
  }
  return { ...parsed, logtype: 'cron', fields };
}

/** `CRON[1234]: (root) CMD (...)`, a cron line whose syslog time and host were left off (journalctl -o cat, a container's stdout). */
export function parseBareCron(text: string): ParsedLine | null {
  const bracket = text.indexOf('[');
  const colon = text.indexOf(']: ', bracket);
  if (bracket < 4 || bracket > 5 || colon < 0 || colon - bracket > 12 || !CRON_APPS.has(text.slice(0, bracket))) return null;
  const pid = text.slice(bracket + 1, colon);
  if (!/^\d+$/.test(pid)) return null;
  const fields: Record<string, unknown> = {};
  setField(fields, 'pid', +pid);
  fields.message = text.slice(colon + 3);
  return asCron({ logtype: 'cron', fields, app: text.slice(0, bracket) });
}
