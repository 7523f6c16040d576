import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isOwnOrigin } from './origin.js';

test('an Origin is our own when it names the Host the request was sent to, or the public address', () => {
  assert.equal(isOwnOrigin('http://127.0.0.1:8080', '127.0.0.1:8080', undefined), true);
  assert.equal(isOwnOrigin('https://Logs.Example.com', 'logs.example.com', undefined), true);
  // Behind a proxy that passes its own Host on, the configured public address still matches.
  assert.equal(isOwnOrigin('https://logs.example.com', '127.0.0.1:8080', 'https://logs.example.com'), true);
  assert.equal(isOwnOrigin('http://logs.example.com', '127.0.0.1:8080', 'https://logs.example.com'), false, 'scheme matters');
});

test('null, garbage, other schemes and other hosts are foreign', () => {
  for (const origin of ['null', '::::', '', 'file:///etc/passwd', 'http://evil.example', 'http://127.0.0.1:8081', 'http://127.0.0.1:8080.evil.example']) {
    assert.equal(isOwnOrigin(origin, '127.0.0.1:8080', 'https://logs.example.com'), false, origin);
  }
  assert.equal(isOwnOrigin('http://127.0.0.1:8080', undefined, undefined), false, 'no Host, no public address: nothing to match');
});
