import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alertSummary, alertsTooltip } from './alert-summary.js';

test('an alert channel in words, as a readonly member sees it', () => {
  assert.equal(alertSummary({ integration: 'email', emails: ['a@x.io'], operator: 'presence', triggerlimit: 5, triggerinterval: '15m' }), 'e-mail to a@x.io when 5 or more lines come within 15 minutes');
  assert.equal(alertSummary({ integration: 'webhook', operator: 'absence', triggerlimit: 1, triggerinterval: '1h' }), 'webhook when no line comes within 1 hour');
  assert.equal(alertSummary({ integration: 'pagerduty', triggerlimit: 2, triggerinterval: '30' }), 'incident paging when 2 or more lines come within 30 seconds');
});

test("the bell's tooltip counts the alerts and lists each", () => {
  assert.equal(
    alertsTooltip([
      { integration: 'webhook', triggerlimit: 1, triggerinterval: '1m' },
      { integration: 'email', emails: ['b@x.io'], triggerlimit: 3, triggerinterval: '5m', operator: 'presence' },
    ]),
    '2 alerts\n• webhook when a line comes within 1 minute\n• e-mail to b@x.io when 3 or more lines come within 5 minutes',
  );
});

test('the new kinds are named, and auto-resolve is told', () => {
  assert.equal(alertSummary({ integration: 'slack', triggerlimit: 1, triggerinterval: '30', url: 'x' }), 'Slack when a line comes within 30 seconds');
  assert.equal(
    alertSummary({ integration: 'opsgenie', triggerlimit: 5, triggerinterval: '5m', autoresolve: true, autoresolvelimit: 2, autoresolveinterval: '15m' }),
    'OpsGenie when 5 or more lines come within 5 minutes, resolved when fewer than 2 lines come within 15 minutes',
  );
});
