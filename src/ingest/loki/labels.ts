import { BadInputError } from '../../lib/ingest-errors.js';

const NAME_START = /[a-zA-Z_]/;
const NAME_CHAR = /[a-zA-Z0-9_]/;
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", a: '\x07', b: '\b', f: '\f', v: '\v' };

/**
 * Parses a stream's labels as the protobuf push carries them, a Prometheus selector of equality
 * matchers: `{job="varlogs", host="web-1"}`. Values are Go-quoted strings (`\"`, `\\`, `\n`, ...,
 * `\xNN`, `\uNNNN`), in double quotes, single quotes or backquotes. Anything else is refused.
 */
export function parseLabels(text: string): Record<string, string> {
  const fail = (why: string): never => {
    throw new BadInputError(`error parsing labels ${JSON.stringify(text.slice(0, 200))}: ${why}`);
  };
  const labels: Record<string, string> = Object.create(null);
  let at = 0;
  const skipSpace = () => {
    while (at < text.length && /\s/.test(text[at])) at++;
  };
  skipSpace();
  if (text[at] !== '{') fail('expected "{"');
  at++;
  skipSpace();
  if (text[at] === '}') {
    at++;
  } else {
    for (;;) {
      skipSpace();
      const start = at;
      if (!NAME_START.test(text[at] ?? '')) fail(`expected a label name at ${at}`);
      while (at < text.length && NAME_CHAR.test(text[at])) at++;
      const name = text.slice(start, at);
      skipSpace();
      if (text[at] !== '=' || text[at + 1] === '~') fail(`expected "=" after ${name}`);
      at++;
      skipSpace();
      const quote = text[at];
      if (quote !== '"' && quote !== "'" && quote !== '`') fail(`expected a quoted value for ${name}`);
      at++;
      let value = '';
      for (;;) {
        if (at >= text.length) fail(`unterminated value for ${name}`);
        const char = text[at++];
        if (char === quote) break;
        if (char !== '\\' || quote === '`') {
          value += char;
          continue;
        }
        const escaped = text[at++] ?? '';
        if (escaped in ESCAPES) value += ESCAPES[escaped];
        else if (escaped === 'x' || escaped === 'u' || escaped === 'U') {
          const digits = escaped === 'x' ? 2 : escaped === 'u' ? 4 : 8;
          const hex = text.slice(at, at + digits);
          if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) fail(`bad escape in the value of ${name}`);
          const code = parseInt(hex, 16);
          if (code > 0x10ffff) fail(`bad escape in the value of ${name}`);
          value += String.fromCodePoint(code);
          at += digits;
        } else fail(`bad escape in the value of ${name}`);
      }
      if (name in labels) fail(`duplicate label name ${name}`);
      labels[name] = value;
      skipSpace();
      if (text[at] === ',') {
        at++;
        skipSpace();
        if (text[at] === '}') {
          at++;
          break;
        }
        continue;
      }
      if (text[at] === '}') {
        at++;
        break;
      }
      fail(`expected "," or "}" at ${at}`);
    }
  }
  skipSpace();
  if (at !== text.length) fail('text after "}"');
  return labels;
}
