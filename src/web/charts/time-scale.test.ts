import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { labelCentre } from './time-scale.js';

describe("a time axis's labels", () => {
  test('a label stays centred on its tick away from the edges', () => {
    assert.equal(labelCentre(300, 50, 600), 300);
  });

  test('a label near an edge moves inwards so that all of it is inside the chart', () => {
    // "09:00 PM", 52 pixels wide, on a tick 10 pixels from the right edge of a 600-pixel chart.
    assert.equal(labelCentre(590, 52, 600), 574);
    assert.equal(labelCentre(5, 52, 600), 26);
  });

  test('a label wider than the chart is centred in it', () => {
    assert.equal(labelCentre(10, 80, 60), 30);
  });
});
