import { type ParsedLine, setField } from './parsed.js';

/**
 * A Go program's crash, as the runtime writes it to stderr and an agent sends it as one line:
 * `panic: runtime error: index out of range [5] with length 3` (or `fatal error: all goroutines
 * are asleep - deadlock!`), a blank line, `goroutine 1 [running]:`, then frames
 * (`main.main()` over `\t/app/main.go:8 +0x1d`). Fields: `panic` (or `fatal_error`), `goroutine`,
 * `goroutine_state`, and the first frame's `function` and `location`.
 */
export function parseGoPanic(text: string): ParsedLine | null {
  const panic = text.startsWith('panic: ');
  if (!panic && !text.startsWith('fatal error: ')) return null;
  const goroutine = text.indexOf('\ngoroutine ');
  if (goroutine < 0) return null;
  const header = /^goroutine (\d+) \[([^\]]*)\]:\n([^\n]+)(?:\n\t([^\n]+?)(?: \+0x[0-9a-f]+)?(?:\n|$))?/.exec(text.slice(goroutine + 1, goroutine + 4096));
  if (!header) return null;
  const fields: Record<string, unknown> = {};
  const firstLineEnd = text.indexOf('\n');
  setField(fields, panic ? 'panic' : 'fatal_error', text.slice(panic ? 7 : 13, firstLineEnd).replace(/ \[recovered\]$/, ''));
  setField(fields, 'goroutine', +header[1]);
  setField(fields, 'goroutine_state', header[2]);
  // "main.main()" or "main.(*Shop).Pay(0xc000012345, {0x4b2c1a, 0x3})": the function without its arguments.
  const call = header[3];
  const paren = call.endsWith(')') ? call.lastIndexOf('(') : -1;
  setField(fields, 'function', paren > 0 ? call.slice(0, paren) : call);
  if (header[4]) setField(fields, 'location', header[4]);
  return { logtype: 'go', fields, level: 'FATAL' };
}
