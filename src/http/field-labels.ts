/**
 * Names of request fields in words, for the `field` of a validation error: a form shows
 * "Alert channel 2: Webhook URL", where Joi's path is channels[1].url.
 */
const FIELD_NAMES: Record<string, string> = {
  name: 'Name',
  query: 'Search query',
  hosts: 'Hosts',
  apps: 'Apps',
  levels: 'Levels',
  tags: 'Tags',
  category: 'Categories',
  presetid: 'Preset alert',
  description: 'Description',
  channels: 'Alert channels',
  alertid: 'Alert id',
  integration: 'Channel type',
  operator: 'Alert on (presence or absence)',
  triggerlimit: 'Line count',
  triggerinterval: 'Time window',
  immediate: 'Send at once',
  terminal: 'Send at end of window',
  emails: 'E-mail recipients',
  timezone: 'Time zone',
  url: 'Webhook URL',
  method: 'HTTP method',
  headers: 'Webhook headers',
  bodyTemplate: 'Webhook body template',
  key: 'PagerDuty service key',
  serviceKey: 'Service key',
  pattern: 'Pattern',
  types: 'Capture types',
  title: 'Title',
  measure: 'Measure',
  type: 'Type',
  field: 'Field',
  breakdown: 'Breakdown',
  limit: 'Series',
  graphs: 'Graphs',
  graphId: 'Graph id',
};

const wordsFor = (name: string) => FIELD_NAMES[name] ?? name;

/** The words for a Joi path, e.g. ['channels', 1, 'url'] → "Alert channel 2: Webhook URL". */
export function fieldLabel(path: ReadonlyArray<string | number>): string {
  if (path.length === 0) return 'The request';
  const [head, ...rest] = path;
  if ((head === 'channels' || head === 'graphs') && typeof rest[0] === 'number') {
    const channel = `${head === 'channels' ? 'Alert channel' : 'Graph'} ${rest[0] + 1}`;
    return rest.length === 1 ? channel : `${channel}: ${fieldLabel(rest.slice(1))}`;
  }
  // A header name or a list's item: the container's words, then which one.
  if (rest.length === 0) return wordsFor(String(head));
  // A graph's measure or breakdown: "Measure: Field".
  if ((head === 'measure' || head === 'breakdown') && typeof rest[0] === 'string') return `${wordsFor(head)}: ${fieldLabel(rest)}`;
  const which = typeof rest[0] === 'number' ? `item ${rest[0] + 1}` : String(rest[0]);
  return `${wordsFor(String(head))}, ${which}`;
}
