export const HOUR_MS = 3_600_000;

const two = (value: number) => String(value).padStart(2, '0');

/**
 * Mezmo's archive object name for an organisation's hour (UTC):
 * `year=YYYY/month=MM/day=DD/<account>.<YYYY>-<MM>-<DD>.<HH>00.json.gz`, and for the later files
 * of the same hour (late lines) `...<HH>00.<N>.json.gz`, N from 1.
 */
export function archiveObjectKey(account: string, hourMs: number, seq: number): string {
  const at = new Date(hourMs);
  const [year, month, day, hour] = [String(at.getUTCFullYear()), two(at.getUTCMonth() + 1), two(at.getUTCDate()), two(at.getUTCHours())];
  return `year=${year}/month=${month}/day=${day}/${account}.${year}-${month}-${day}.${hour}00${seq > 0 ? `.${seq}` : ''}.json.gz`;
}
