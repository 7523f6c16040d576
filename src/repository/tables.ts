import type { Generated } from 'kysely';

/** The two databases the configuration can live in. */
export type ConfigDialect = 'sqlite' | 'postgres';

/**
 * The configuration tables as both dialects hold them. Flags are 0/1 integers and times are either
 * ISO text (what the Mezmo API shows) or Unix ms, so the same rows read alike from SQLite and
 * PostgreSQL.
 */
export interface ConfigTables {
  accounts: {
    account: string;
    name: string;
    active: number;
    created_at: string;
    retention_days: number | null;
    deactivated_at: number | null;
  };
  api_keys: {
    id: string;
    account: string;
    type: 'ingestion' | 'service';
    name: string;
    key_hash: string;
    created_at: string;
    revoked_at: string | null;
    /** The member who made it over the API, whose current role and scope bound it; null for full rights (the CLI, an unbounded key). */
    made_by: string | null;
  };
  meta_field_types: {
    account: string;
    path: string;
    type: string;
    first_day: string;
  };
  /** The first type ('number' or 'string') of each field the common formats parse (src/ingest/formats). */
  parsed_field_types: {
    account: string;
    name: string;
    type: string;
  };
  /** Custom parsing rules (src/parsers); apps and hosts are JSON arrays, types a JSON object. */
  parsers: {
    id: string;
    account: string;
    name: string;
    apps: string;
    hosts: string;
    query: string;
    pattern: string;
    types: string;
    created_at: number;
    updated_at: number;
  };
  categories: {
    id: string;
    account: string;
    type: 'views' | 'boards' | 'screens';
    name: string;
    created_at: string;
  };
  presets: {
    presetid: string;
    account: string;
    name: string;
    channels: string;
    created_at: string;
    modified_at: string;
  };
  views: {
    viewid: string;
    account: string;
    name: string;
    filters: string;
    category_ids: string;
    presetid: string | null;
    channels: string;
    created_at: string;
    modified_at: string;
    /** JSON list of searches: the access scope of the member who last saved it; null for everything. */
    access_scope: string | null;
    /** The member who last saved it (whose scope it follows); null when a service key saved it. */
    saved_by: string | null;
  };
  /** Boards of graphs (src/boards); graphs is the JSON list of the board's graphs. */
  boards: {
    board_id: string;
    account: string;
    name: string;
    /** A category of type `boards`; null: uncategorized. */
    category_id: string | null;
    graphs: string;
    created_at: string;
    modified_at: string;
  };
  alert_windows: {
    viewid: string;
    alertid: string;
    account: string;
    window_start: number;
    count: number;
    fired_immediate: number;
    samples: string;
  };
  alert_incidents: {
    viewid: string;
    alertid: string;
    account: string;
    opened_at: number;
    window_start: number;
    count: number;
  };
  view_activity: {
    viewid: string;
    account: string;
    last_line_at: number;
  };
  alert_fires: {
    id: Generated<number>;
    account: string;
    viewid: string;
    alertid: string;
    window_start: number;
    kind: string;
    matches: number;
    fired_at: number;
  };
  deliveries: {
    id: Generated<number>;
    account: string;
    fire_id: number | null;
    integration: string;
    target: string;
    message: string;
    status: 'pending' | 'delivered' | 'failed';
    attempts: number;
    next_attempt_at: number;
    created_at: number;
    updated_at: number;
    /** Until when (Unix ms) a node holds this delivery to send it; another node may take it after. */
    claimed_until: number | null;
    /** The slot of the node that holds the claim (see node_starts). */
    claimed_by: number | null;
    /** Names one claim: only its holder may record the outcome or renew it. */
    claim_token: string | null;
    /** Who set the target: `member:<id>` or a key's id; a member's deliveries stop once they are removed. */
    set_by: string | null;
    /** JSON list of the access scopes that bound what it carries (the view's, its setter's); null: unbounded. */
    scope_json: string | null;
  };
  delivery_attempts: {
    id: Generated<number>;
    delivery_id: number;
    at: number;
    outcome: string;
    detail: string;
    status_code: number | null;
  };
  sessions: {
    id_hash: string;
    account: string;
    key_id: string;
    csrf: string;
    created_at: number;
    expires_at: number;
    /** The member who signed in; null for a service key's session (then key_id names the key). */
    member_id: string | null;
  };
  members: {
    id: string;
    account: string;
    /** Lower-cased: one member per address and organisation, whatever its case. */
    email: string;
    role: 'owner' | 'admin' | 'member' | 'readonly';
    /** scrypt (people/passwords.ts); null until the member chooses one (or signs in only with SSO). */
    password_hash: string | null;
    /** The last sign-in (password or single sign-on), Unix ms; null until the first. */
    signed_in_at: number | null;
    created_at: number;
    modified_at: number;
  };
  member_groups: {
    id: string;
    account: string;
    name: string;
    /** JSON: the access scope as the client gave it, a search or a list of searches. */
    access_scopes: string;
    /** JSON arrays of exact app and host names the group's lines must have; '[]' limits nothing. */
    apps: string;
    hosts: string;
    created_at: number;
    modified_at: number;
  };
  group_members: {
    group_id: string;
    member_id: string;
  };
  /** Invitation, password-reset and first-owner links: only the token's hash is kept. */
  one_time_links: {
    token_hash: string;
    account: string;
    purpose: 'invite' | 'reset' | 'owner';
    member_id: string | null;
    created_at: number;
    expires_at: number;
    used_at: number | null;
  };
  /** An OpenID sign-in under way: what the callback must check, keyed by the browser's cookie. */
  sign_on_attempts: {
    id_hash: string;
    state: string;
    nonce: string;
    code_verifier: string;
    expires_at: number;
  };
  audit_records: {
    id: Generated<number>;
    account: string;
    at: number;
    actor: string;
    address: string;
    action: string;
    resource: string;
    resource_id: string;
    before_json: string | null;
    after_json: string | null;
  };
  /** Server-wide secrets shared by every node (the export links' signing key). */
  secrets: {
    name: string;
    value: string;
  };
  /** E-mailed export files, kept in the shared database so any node can serve the link. */
  export_files: {
    id: string;
    account: string;
    content: Uint8Array;
    created_at: number;
    expires_at: number;
  };
  /** One row per node start: its number gives the node a slot in line ids. */
  node_starts: {
    id: Generated<number>;
    started_at: number;
  };
  /** Ingestion exclusion rules (Mezmo's /v1/config/ingestion/exclusions); apps and hosts as JSON arrays. */
  exclusion_rules: {
    id: string;
    account: string;
    title: string;
    active: number;
    indexonly: number;
    apps_json: string;
    hosts_json: string;
    query: string;
    created_at: number;
    /** Goes up whenever apps, hosts or query change (migrations.ts, step 9). */
    filter_version: Generated<number>;
  };
  /** Lines and bytes each exclusion rule kept out of the store, per hour (Unix ms of its start). */
  exclusion_counts: {
    account: string;
    rule_id: string;
    hour: number;
    lines: number;
    bytes: number;
    /** The lowest filter version of the rule the hour's lines were counted under; -1 before versions were kept. */
    filter_version: Generated<number>;
  };
  /** Whether an organisation's ingestion is suspended, and the token a requested suspension waits on (hashed). */
  ingestion_control: {
    account: string;
    suspended: number;
    token_hash: string | null;
    token_expires_at: number | null;
    changed_at: number;
  };
  /** The index-rate alert (Mezmo's /v1/config/index-rate), and the start of the last period it fired for. */
  index_rate_alerts: {
    account: string;
    config_json: string;
    fired_period: number | null;
  };
  /** An organisation's archive bucket (src/archive); the secret access key sealed. */
  archive_configs: {
    account: string;
    integration: string;
    bucket: string;
    endpoint: string | null;
    region: string | null;
    access_key: string;
    secret_sealed: string;
    force_path_style: number;
    configured_at: number;
    updated_at: number;
    passed_to: number;
    eligible_before: number;
  };
  /** One archive object, planned then written (src/archive/archive-files.ts). */
  archive_files: {
    id: Generated<number>;
    account: string;
    hour: number;
    seq: number;
    object_key: string;
    arrival_from: number;
    arrival_to: number;
    planned_lines: number;
    status: 'pending' | 'written';
    lines: number | null;
    bytes: number | null;
    attempts: number;
    next_attempt_at: number;
    last_error: string | null;
    claimed_until: number | null;
    claimed_by: number | null;
    claim_token: string | null;
    created_at: number;
    written_at: number | null;
  };
  /** A restore of archived lines into the store (src/archive/restores.ts). */
  archive_restores: {
    id: string;
    account: string;
    from_ms: number;
    to_ms: number;
    query: string;
    keep_until: number;
    status: 'running' | 'done' | 'failed' | 'cancelled';
    lines_found: number;
    lines_restored: number;
    error: string | null;
    created_at: number;
    finished_at: number | null;
    /** The reader's access scope as JSON (null: every line), so a node taking over reads as they could. */
    scope_json: string | null;
    /** The hosts, apps, levels and tags it keeps to, as JSON (RestoreFilters); null: none. */
    filters_json: string | null;
    /** The node (one Restores instance) running it, and when it last said it still is. */
    claimed_by: string | null;
    heartbeat_at: number | null;
    /** The last archived line handled (time and id); null before the first. */
    position_ts: number | null;
    position_id: string | null;
  };
}
