import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { AGENT_SEARCH_ATTRIBUTES } from '../../src/workflow-contract/search-attributes';
import { STACK_DEFAULTS } from '../../src/shared/defaults/stack';
import { PROJECT_ROOT, STACK_DYNAMIC_CONFIG_FILE } from '../../dev/stack/stack';
import { TEMPORAL_SQL_PLUGIN } from '../../dev/stack/temporal-server';
import { COMPOSE_FILE, readStackVersions } from '../../dev/stack/versions';
import { resolveTemporalBinaries } from '../../dev/stack/binaries';
import { postgresBinDirectory } from '../../dev/stack/postgres';

/**
 * docker-compose.yml and `npm run stack` are one production shape in two forms: the same versions (read from the
 * compose file's image tags), the same number of workers and API processes, the same Temporal settings and dynamic
 * config file, the same search attributes.
 */

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: Array<string | number | { target?: number; published?: string | number; host_ip?: string }>;
  deploy?: { replicas?: number };
}

let services: Record<string, ComposeService>;

/** A published port as Compose reads it: short (`[ip:]host:container[/protocol]`, or a bare container port) or long. */
function publishedPort(port: NonNullable<ComposeService['ports']>[number]): { hostIp: string; hostPort: string } {
  if (typeof port === 'object') return { hostIp: port.host_ip ?? '', hostPort: String(port.published ?? '') };
  const parts = String(port)
    .replace(/\/\w+$/, '')
    .split(':');
  // An IPv6 address is written in brackets and holds colons itself.
  const bracketed = /^\[([^\]]+)\]:(.*)$/.exec(String(port));
  if (bracketed !== null) return { hostIp: bracketed[1] ?? '', hostPort: (bracketed[2] ?? '').split(':')[0] ?? '' };
  if (parts.length === 3) return { hostIp: parts[0] ?? '', hostPort: parts[1] ?? '' };
  // `host:container` or a bare container port: published on every interface.
  return { hostIp: '', hostPort: parts.length === 2 ? (parts[0] ?? '') : '' };
}

beforeAll(async () => {
  // Merge keys on: the second API process is the first one (`<<: *api`) on another port, as Compose reads it.
  services = (parse(await readFile(COMPOSE_FILE, 'utf8'), { merge: true }) as { services: typeof services }).services;
});

describe('docker-compose.yml and npm run stack', () => {
  test('run the versions the compose images name: Temporal and its admin tools, the web UI, PostgreSQL', async () => {
    const versions = await readStackVersions();
    expect(services.temporal?.image).toBe(`temporalio/auto-setup:${versions.temporal}`);
    expect(services['temporal-search-attributes']?.image).toBe(`temporalio/admin-tools:${versions.temporal}`);
    expect(services['temporal-ui']?.image).toBe(`temporalio/ui:${versions.ui}`);
    expect(services.postgresql?.image).toBe(`postgres:${versions.postgres}`);
    // A major version only: the stack compares it with the machine's PostgreSQL (Debian 12's package is 15).
    expect(versions.postgres).toMatch(/^\d+$/);
  });

  test('run as many workers and API processes', () => {
    expect(services.worker?.deploy?.replicas).toBe(STACK_DEFAULTS.workers);
    const apis = Object.entries(services).filter(
      ([, service]) => service.command?.join(' ') === 'node dist/api/main.js',
    );
    expect(apis.map(([name]) => name)).toEqual(
      Array.from({ length: STACK_DEFAULTS.apis }, (_, index) => `api-${index + 1}`),
    );
    // Each on a port of its own on the host, all with the same token and task queue.
    expect(new Set(apis.map(([, service]) => publishedPort(service.ports![0]!).hostPort)).size).toBe(
      STACK_DEFAULTS.apis,
    );
    expect(new Set(apis.map(([, service]) => JSON.stringify(service.environment))).size).toBe(1);
    expect(apis[0]?.[1].environment?.AGENT_TASK_QUEUE).toBe(services.worker?.environment?.AGENT_TASK_QUEUE);
  });

  test("run Temporal alike: PostgreSQL through the same SQL plugin, the shards, the namespace's retention, the same dynamic config file", () => {
    const environment = services.temporal?.environment ?? {};
    expect(environment.DB).toBe(TEMPORAL_SQL_PLUGIN);
    expect(Number(environment.NUM_HISTORY_SHARDS)).toBe(STACK_DEFAULTS.numHistoryShards);
    expect(environment.DEFAULT_NAMESPACE_RETENTION).toBe(`${STACK_DEFAULTS.retentionMs / 3600_000}h`);
    expect(environment.POSTGRES_USER).toBe(STACK_DEFAULTS.postgresUser);
    // The image reads DYNAMIC_CONFIG_FILE_PATH relative to /etc/temporal; the file mounted there is the stack's.
    const mount = services.temporal?.volumes
      ?.map((volume) => volume.split(':'))
      .find(([, target]) => target === path.posix.join('/etc/temporal', environment.DYNAMIC_CONFIG_FILE_PATH ?? ''));
    expect(mount).toBeDefined();
    expect(path.resolve(PROJECT_ROOT, mount?.[0] ?? '')).toBe(STACK_DYNAMIC_CONFIG_FILE);
  });

  test('publish every port of every service on 127.0.0.1 alone, as npm run stack binds its parts', () => {
    const published = Object.entries(services).flatMap(([name, service]) =>
      (service.ports ?? []).map((port) => ({ service: name, port, ...publishedPort(port) })),
    );
    // Temporal's frontend, the web UI and both APIs: a port that is not bound to loopback would reach the network.
    expect(published.map((each) => each.service).sort()).toEqual(['api-1', 'api-2', 'temporal', 'temporal-ui']);
    for (const each of published) expect(each).toEqual({ ...each, hostIp: '127.0.0.1' });
  });

  test('the published-port reader sees which ports reach every interface', () => {
    expect(publishedPort('7233:7233')).toEqual({ hostIp: '', hostPort: '7233' });
    expect(publishedPort('8080')).toEqual({ hostIp: '', hostPort: '' });
    expect(publishedPort('0.0.0.0:3000:3000/tcp')).toEqual({ hostIp: '0.0.0.0', hostPort: '3000' });
    expect(publishedPort('127.0.0.1:3001:3000')).toEqual({ hostIp: '127.0.0.1', hostPort: '3001' });
    expect(publishedPort('[::1]:7233:7233')).toEqual({ hostIp: '::1', hostPort: '7233' });
    expect(publishedPort({ target: 8080, published: 8080 })).toEqual({ hostIp: '', hostPort: '8080' });
    expect(publishedPort({ target: 8080, published: '8080', host_ip: '127.0.0.1' })).toEqual({
      hostIp: '127.0.0.1',
      hostPort: '8080',
    });
  });

  test('register the same search attributes, with the same types, and fail unless each is listed', () => {
    const command = services['temporal-search-attributes']?.command?.join(' ') ?? '';
    const registered = Object.fromEntries(
      [...command.matchAll(/--name (\w+) --type (\w+)/g)].map(([, name, type]) => [name, type]),
    );
    expect(registered).toEqual(AGENT_SEARCH_ATTRIBUTES);
    const checked = /for name in ([\w ]+);/.exec(command)?.[1]?.trim().split(/\s+/) ?? [];
    expect(checked.sort()).toEqual(Object.keys(AGENT_SEARCH_ATTRIBUTES).sort());
  });
});

describe("the stack's PostgreSQL programs", () => {
  test('are found where Debian puts them, also without pg_config on PATH', async () => {
    const found = await postgresBinDirectory({ env: { PATH: '/nonexistent' } });
    expect(found).toMatch(/^\/usr\/lib\/postgresql\/\d+\/bin$/);
  });

  test('missing, the error names what to install and where it looked', async () => {
    await expect(
      postgresBinDirectory({ env: { PATH: '/nonexistent' }, packageRoot: '/nonexistent/postgresql' }),
    ).rejects.toThrow(/PostgreSQL is not installed.*apt-get install postgresql.*Looked in: no pg_config on PATH/s);
  });
});

describe("the stack's Temporal programs", () => {
  test('not built yet and no Go on PATH, the error says to install Go or use the compose file', async () => {
    const cache = await mkdtemp(path.join(os.tmpdir(), 'stack-cache-'));
    try {
      await expect(
        resolveTemporalBinaries(await readStackVersions(), () => {}, {
          PATH: '/nonexistent',
          AGENT_RUNNER_CACHE_DIR: cache,
        }),
      ).rejects.toThrow(/no `go` on PATH\. Install Go 1\.24 or newer .*or use docker-compose\.yml/);
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });
});
