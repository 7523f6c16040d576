/** What each kind of channel is called in the editor. */
export const KIND_NAMES: Record<string, string> = { email: 'E-mail', webhook: 'Webhook', incidentpaging: 'Paging', pagerduty: 'Paging', slack: 'Slack', teams: 'Teams', opsgenie: 'OpsGenie', victorops: 'VictorOps' };

/** The kinds a new alert can be, in the order the editor offers them. */
export const NEW_KINDS = ['email', 'webhook', 'incidentpaging', 'slack', 'teams', 'opsgenie', 'victorops'];

/** A trigger (or auto-resolve) interval's choices, as the API takes them. */
export const INTERVALS = ['30', '1m', '5m', '15m', '30m', '1h', '6h', '12h', '24h', '25h'];
