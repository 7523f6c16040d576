/**
 * Every client-supplied value is bounded (the Limits table in docs/security.md). Mezmo's own
 * limits (compat reference §2.7) where it documents one; the others are Logstead's. Per-line
 * values are cut to their limit, as Mezmo cuts lines, so one odd line never costs the batch;
 * request parameters (hostname, tags) come from the sender's configuration, not its logs, and are
 * refused with 400 so the misconfiguration shows at once.
 */
export const LIMITS = {
  /** Characters. Refused as a parameter; cut as a line's `host`/`hostname`. */
  hostname: 256,
  app: 512,
  level: 80,
  /** Characters per tag; refused. */
  tag: 80,
  /** Distinct tags per request; refused. Every stored line carries them all. */
  tags: 32,
  /** Characters: a short label, like level and tag. */
  env: 80,
  /** Characters: a path, longer than any Kubernetes log path. */
  file: 1024,
  /** Characters of a string `pid`, `prival` or `containerid` (which are numbers or ids). */
  extraValue: 256,
  /** UTF-8 bytes of each of the `label` and `annotation` maps, as JSON. */
  extraMapBytes: 16 * 1024,
  lineBytes: 16 * 1024,
  metaBytes: 32 * 1024,
  bodyBytes: 10 * 1024 * 1024,
  /**
   * Characters of a request's rows as written to the store. Every row repeats the request's
   * hostname and tags, so 10 MB of tiny lines could otherwise become gigabytes in memory (a
   * realistic 10 MB body of 50-byte lines stores about 50 MB).
   */
  storedChars: 64 * 1024 * 1024,
} as const;
