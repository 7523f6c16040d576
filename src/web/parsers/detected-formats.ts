import type { FormatLogtype } from '../../ingest/formats/parsed.js';

/**
 * How the Parsing rules page names each format that ingest recognises on its own
 * (src/ingest/formats): keyed by `_logtype`, so a new format fails the build until it is named
 * here. Formats named alike are listed once.
 */
const FORMAT_NAMES: Record<FormatLogtype, string> = {
  logfmt: 'logfmt',
  syslog: 'syslog headers',
  apache: 'Apache and nginx access and error logs',
  nginx: 'Apache and nginx access and error logs',
  haproxy: 'HAProxy',
  alb: 'AWS ALB and CloudFront',
  cloudfront: 'AWS ALB and CloudFront',
  heroku: 'Heroku router',
  docker: 'Docker',
  rails: 'Rails',
  java: 'Java stack traces',
  go: 'Go panics',
  postgresql: 'PostgreSQL',
  mysql: 'MySQL and MariaDB',
  redis: 'Redis',
  cron: 'cron',
};

/** The formats parsed without a rule, as one list in words: JSON first, then each of FORMAT_NAMES once. */
export function detectedFormatsText(): string {
  const names = ['JSON', ...new Set(Object.values(FORMAT_NAMES))];
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
