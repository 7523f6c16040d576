/**
 * A view's columns. Mezmo's view has no field for them, but it has a free-text description that
 * every client keeps: the columns are saved there as one line, "Columns: level, host, app", which
 * survives reloads, other browsers and other clients, and reads plainly where the description is shown.
 */
const LINE = /^Columns: (.*)$/m;

export function columnsOf(description: string | undefined): string[] | null {
  const found = description?.match(LINE);
  return found ? found[1].split(',').map((name) => name.trim()).filter(Boolean) : null;
}

export function withColumns(description: string | undefined, columns: string[]): string {
  const line = `Columns: ${columns.join(', ')}`;
  if (!description) return line;
  return LINE.test(description) ? description.replace(LINE, line) : `${description.replace(/\n*$/, '')}\n${line}`;
}
