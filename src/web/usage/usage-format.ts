/** 1234567 bytes as "1.2 MB": volumes span bytes to terabytes. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** A count of lines with thousands separators, the same in every locale. */
export const formatCount = (lines: number) => lines.toLocaleString('en');

export const DAY_MS = 86_400_000;

/** A day's bar as a share of the largest day's bytes, in per cent; at least 1 so that a day with lines shows. */
export const barWidth = (bytes: number, largest: number) => Math.max(1, (bytes / largest) * 100);
