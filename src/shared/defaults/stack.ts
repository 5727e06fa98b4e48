/**
 * The production shape on one machine (`npm run stack`): a real Temporal server on PostgreSQL, its web UI, two
 * workers and two API processes, as `docker-compose.yml` describes them.
 */
export const STACK_DEFAULTS = {
  /** The folder the stack keeps its PostgreSQL cluster, configuration and logs in, under the project. */
  directory: '.stack',
  /** PostgreSQL's superuser, which Temporal connects as (the compose file's POSTGRES_USER). */
  postgresUser: 'temporal',
  /**
   * The fixed password of clusters that versions up to 0.2.0 created: a start finds it on such a cluster and replaces
   * it with a random one (kept in `postgres/password`). Never used for a new cluster.
   */
  legacyPostgresPassword: 'temporal',
  /** A new cluster's random superuser password, in bytes (written as hex: no quoting in SQL, YAML or a URL). */
  postgresPasswordBytes: 24,
  /**
   * What PostgreSQL, Temporal and its web UI take from the stack's own environment: where programs and temporary
   * files are, the locale and the time zone (and `LC_*`). Nothing else: the stack's environment holds the model's key
   * and the API token, which a superuser's `COPY ... FROM PROGRAM` or a server's crash dump would reveal.
   */
  inheritedEnvironment: ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR'],
  /** Temporal's services open up to their pools' sizes each (`maxConns`); room for two of them at once. */
  postgresMaxConnections: 200,
  /** Temporal's history shards: fixed when the cluster is created (the compose image's default is 4). */
  numHistoryShards: 4,
  /** The `default` namespace's retention, as the compose image's auto-setup registers it (one day). */
  retentionMs: 24 * 3600_000,
  /** How many workers and API processes the stack runs, as `docker compose up --scale` would. */
  workers: 2,
  apis: 2,
  /** How long each part may take to come up. A first start of Temporal on a new database runs its schema. */
  startTimeoutMs: 3 * 60_000,
  pollMs: 200,
  progressEveryMs: 10_000,
  /** How long a part gets after SIGTERM before SIGKILL. */
  stopGraceMs: 10_000,
} as const;
