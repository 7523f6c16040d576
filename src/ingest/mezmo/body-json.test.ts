import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseInPieces, parseJsonBody } from './body-json.js';

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const AWKWARD = ['plain', 'tab\there', 'quote " and \\ backslash', 'brackets ]}[{ ,', 'emoji 🚀 café 日本語', '\\"', '', '\u2028', '{"nested":"json"}'];

function lines(count: number, seed: number): unknown[] {
  const next = random(seed);
  return Array.from({ length: count }, (_, i) => {
    const text = `${AWKWARD[i % AWKWARD.length]} ${'word '.repeat(Math.floor(next() * 60))}${i}`;
    const line: Record<string, unknown> = { line: text, app: `app-${i % 7}`, timestamp: 1_763_800_000_000 + i };
    if (i % 3 === 0) line.meta = { user: { id: i, tags: ['a', ']', '}'] }, ok: i % 2 === 0, n: null, f: -1.5e3 };
    if (i % 5 === 0) line.level = 'WARN';
    return line;
  });
}

/** What JSON.parse makes of the text, or the fact that it refuses it. */
function reference(text: string): { value: unknown } | { refused: true } {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { refused: true };
  }
}

function parsedByBody(bytes: Buffer): { value: unknown } | { refused: true } {
  try {
    return { value: parseJsonBody(bytes) };
  } catch {
    return { refused: true };
  }
}

test('large envelopes are followed in pieces and read exactly as JSON.parse reads them', () => {
  const envelopes = [
    { lines: lines(2000, 1) },
    { e: 'ls', ls: lines(1500, 2) },
    { hostname: 'h', tags: ['x', 'y'], lines: lines(1200, 3), apikey: 'k', __proto__x: 1 },
    { lines: [], padding: 'p'.repeat(200_000) },
    { lines: lines(10, 4), big: { deep: lines(900, 5) } },
  ];
  for (const [index, envelope] of envelopes.entries()) {
    for (const text of [JSON.stringify(envelope), JSON.stringify(envelope, null, 2)]) {
      const bytes = Buffer.from(text, 'utf8');
      assert.ok(bytes.length > 100_000, `envelope ${index} is large enough to be read in pieces`);
      assert.deepStrictEqual(parseInPieces(bytes), JSON.parse(text), `envelope ${index}`);
    }
  }
});

test('a body whose shape the pieces do not follow is still read exactly as JSON.parse reads it', () => {
  const many = JSON.stringify(lines(1000, 6)).slice(1, -1);
  const bodies = [
    `{"lines":[${many}],"lines":[]}`, // a repeated key: JSON.parse keeps the last
    `{"lin\\u0065s":[${many}]}`, // an escape in a key
    `{"__proto__":{"polluted":true},"lines":[${many}]}`,
    `[${many}]`,
    `\ufeff{"lines":[${many}]}`, // a byte-order mark is not JSON
    `{"lines":[${many},]}`, // a trailing comma
    `{"lines":[${many}] } x`,
    `{"lines":[${many}]`,
    `{"lines":[${many}]}   \n`,
    `{"lines":[${many}], "n": 01}`,
    `{"lines":"${'x'.repeat(200_000)}"}`,
  ];
  for (const text of bodies) {
    const bytes = Buffer.from(text, 'utf8');
    const expected = reference(text);
    const actual = parsedByBody(bytes);
    assert.deepStrictEqual(actual, expected, text.slice(0, 60));
    if ('value' in actual && actual.value !== null && typeof actual.value === 'object') {
      assert.equal(Object.getPrototypeOf(actual.value), Object.getPrototypeOf((expected as { value: object }).value));
    }
  }
});

test('elements whose nested arrays of objects start like the elements themselves are read exactly', () => {
  // The slice ends are guessed from where the first element's opening bytes recur ({"line":):
  // here they recur inside every element too, so guesses land inside elements and must be refused.
  const elements = Array.from({ length: 900 }, (_, i) => ({
    line: `entry ${i} ${'pad '.repeat(i % 40)}},{"line": inside a string`,
    meta: { items: [{ line: i }, { line: `${i}` }], lines: [{ line: 'x' }] },
  }));
  for (const text of [JSON.stringify({ lines: elements }), JSON.stringify({ lines: elements }, null, 1)]) {
    const bytes = Buffer.from(text, 'utf8');
    assert.ok(bytes.length > 100_000);
    assert.deepStrictEqual(parseInPieces(bytes), JSON.parse(text));
  }
});

test('elements that do not all start alike, or are not objects, are read exactly', () => {
  const mixed = Array.from({ length: 1500 }, (_, i) => (i % 3 === 0 ? { timestamp: i, line: `t ${i} ${'w '.repeat(30)}` } : i % 3 === 1 ? { line: `l ${i} ${'w '.repeat(30)}` } : `plain ${i} ${'w '.repeat(30)}`));
  for (const lines of [mixed, mixed.slice(1), mixed.slice(2)]) {
    const text = JSON.stringify({ lines });
    assert.deepStrictEqual(parseInPieces(Buffer.from(text, 'utf8')), JSON.parse(text));
  }
});

test('the body bytes are left as they came, whether read in pieces or refused', () => {
  const good = Buffer.from(JSON.stringify({ lines: lines(1500, 11) }), 'utf8');
  const copy = Buffer.from(good);
  parseJsonBody(good);
  assert.ok(good.equals(copy));
  const broken = Buffer.concat([good.subarray(0, good.length - 2)]);
  const brokenCopy = Buffer.from(broken);
  assert.throws(() => parseJsonBody(broken));
  assert.ok(broken.equals(brokenCopy));
});

test('a trailing comma right where a slice ends is refused, as JSON.parse refuses it', () => {
  const big = JSON.stringify({ line: 'x'.repeat(60_000) });
  const text = `{"lines":[${big},${big}, ]}`;
  assert.throws(() => JSON.parse(text));
  assert.throws(() => parseJsonBody(Buffer.from(text, 'utf8')));
});

test('invalid UTF-8 and lone surrogates read as they do in one piece', () => {
  const good = Buffer.from(JSON.stringify({ lines: lines(1200, 7) }), 'utf8');
  const withBadBytes = Buffer.concat([good.subarray(0, 20), Buffer.from('\ud800 \\ud800', 'utf8'), Buffer.from([0xff, 0xc3]), good.subarray(20)]);
  // The bad bytes land inside the first line's text, which starts 20 bytes in.
  assert.deepStrictEqual(parsedByBody(withBadBytes), reference(withBadBytes.toString('utf8')));
  assert.ok('value' in parsedByBody(withBadBytes));
});

test('mutated bodies: the pieces and JSON.parse agree on every one, value or refusal', () => {
  const next = random(99);
  const source = Buffer.from(JSON.stringify({ hostname: 'h', lines: lines(800, 8) }), 'utf8');
  const alphabet = Buffer.from('{}[]",:\\ 0a\ttrue', 'utf8');
  let followed = 0;
  for (let round = 0; round < 300; round++) {
    const bytes = Buffer.from(source);
    const edits = 1 + Math.floor(next() * 3);
    let mutated = bytes;
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(next() * mutated.length);
      const kind = next();
      if (kind < 0.4) mutated[at] = alphabet[Math.floor(next() * alphabet.length)];
      else if (kind < 0.7) mutated = Buffer.concat([mutated.subarray(0, at), mutated.subarray(at + 1)]);
      else mutated = Buffer.concat([mutated.subarray(0, at), alphabet.subarray(Math.floor(next() * alphabet.length)).subarray(0, 1), mutated.subarray(at)]);
    }
    const expected = reference(mutated.toString('utf8'));
    assert.deepStrictEqual(parsedByBody(mutated), expected, `round ${round}`);
    try {
      parseInPieces(mutated);
      followed++;
    } catch {
      // Not followed: JSON.parse decided, and agreed above.
    }
  }
  // Most single edits land inside a string and leave valid JSON: the pieces must have read those.
  assert.ok(followed > 100, `the pieces followed ${followed} of 300`);
});
