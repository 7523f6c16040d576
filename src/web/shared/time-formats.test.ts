import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fromInput, timeFormats, toInput, zoneOf } from './time-formats.js';

// A zone half an hour off UTC, so local and UTC times differ in their minutes.
process.env.TZ = 'Asia/Kolkata';
const at = Date.UTC(2026, 0, 2, 23, 45, 6, 789);

describe('times in the zone chosen', () => {
  test('UTC shows UTC wall-clock times', () => {
    const utc = timeFormats('UTC');
    assert.equal(utc.zone, 'UTC');
    assert.equal(utc.offsetMinutes(at), 0);
    assert.deepEqual(utc.hourMinute(at), [23, 45]);
    assert.match(utc.full.format(at), /02.*23:45:06\.789|02.*11:45:06\.789/);
    assert.equal(utc.full.resolvedOptions().timeZone, 'UTC');
  });

  test("the local zone is the browser's: Kolkata is UTC+5:30, the next day here", () => {
    const local = timeFormats('local');
    assert.equal(local.offsetMinutes(at), 330);
    assert.deepEqual(local.hourMinute(at), [5, 15]);
    assert.match(local.full.resolvedOptions().timeZone, /^Asia\/(Kolkata|Calcutta)$/);
  });

  test('date-time inputs hold wall-clock times of the zone shown', () => {
    assert.equal(toInput(at, 'UTC'), '2026-01-02T23:45:06');
    assert.equal(toInput(at, 'local'), '2026-01-03T05:15:06');
    assert.equal(fromInput('2026-01-02T23:45:06', 'UTC'), at - 789);
    assert.equal(fromInput('2026-01-03T05:15:06', 'local'), at - 789);
    assert.ok(Number.isNaN(fromInput('', 'UTC')), 'an empty input is no time');
  });

  test('a stored choice: UTC only when UTC was chosen', () => {
    assert.equal(zoneOf('UTC'), 'UTC');
    assert.equal(zoneOf('local'), 'local');
    assert.equal(zoneOf(null), 'local');
    assert.equal(zoneOf('utc'), 'local');
  });
});
