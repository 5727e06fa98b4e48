import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { authenticate, principalsOf } from '../../src/api/auth';
import { redactSecretParameters } from '../../src/api/log-redaction';
import { API_TOKEN_PRINCIPAL, newApiToken, parsePrincipals, tokenSha256 } from '../../src/config/principals';
import { API_SCOPE_NAMES, ROUTE_SCOPES, allows, scopeOfRoute } from '../../src/api/scopes';
import { loadApiConfig } from '../../src/config/api';
import { deciderNameSchema } from '../../src/shared/control';
import { checkDecision, decidedBy } from '../../src/workflows/rules/approval-rules';

const DIGEST = 'a'.repeat(64);

describe('parsePrincipals: the principals file', () => {
  test('a valid file: names, digests (any case) and scopes', () => {
    const parsed = parsePrincipals(
      JSON.stringify([
        { name: 'ops-bot', tokenSha256: DIGEST.toUpperCase(), scopes: ['runs:read', 'approvals:decide'] },
        { name: 'viewer', tokenSha256: 'b'.repeat(64), scopes: ['runs:read'] },
      ]),
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.principals.map((principal) => principal.name)).toEqual(['ops-bot', 'viewer']);
    expect(parsed.principals[0]?.tokenSha256.toString('hex')).toBe(DIGEST);
    expect([...(parsed.principals[0]?.scopes ?? [])]).toEqual(['runs:read', 'approvals:decide']);
  });

  test('every problem at once, each naming its entry', () => {
    const parsed = parsePrincipals(
      JSON.stringify([
        { name: 'ok', tokenSha256: DIGEST, scopes: ['runs:read'] },
        { name: 'short', tokenSha256: 'abc', scopes: ['runs:read'] },
        { name: 'bad-scope', tokenSha256: 'c'.repeat(64), scopes: ['runs:delete'] },
        { name: 'ok', tokenSha256: 'd'.repeat(64), scopes: ['admin'] },
        { name: 'same-token', tokenSha256: DIGEST, scopes: ['admin'] },
        { name: 'no\nnewlines', tokenSha256: 'e'.repeat(64), scopes: ['admin'] },
        { name: 'extra', tokenSha256: 'f'.repeat(64), scopes: ['admin'], token: 'plain' },
        { name: 'none', tokenSha256: '0'.repeat(64), scopes: [] },
      ]),
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems).toEqual([
      expect.stringMatching(/^entry 2 \("short"\): tokenSha256: expected the SHA-256 of the token, 64 hex digits/),
      expect.stringMatching(/^entry 3 \("bad-scope"\): scopes\.0: /),
      'entry 4 ("ok"): the name is taken; names must be unique',
      'entry 5 ("same-token"): the same token as an earlier entry; give each its own token',
      expect.stringMatching(/^entry 6 \("no\\nnewlines"\): name: letters, digits/),
      expect.stringMatching(/^entry 7 \("extra"\): entry: Unrecognized key: "token"/),
      'entry 8 ("none"): scopes: give at least one scope',
    ]);
  });

  test('not JSON, not an array, an empty array; the AGENT_API_TOKEN principal name is reserved', () => {
    expect(parsePrincipals('{')).toMatchObject({ ok: false, problems: [expect.stringMatching(/^not JSON: /)] });
    expect(parsePrincipals('{}')).toMatchObject({ ok: false, problems: [expect.stringMatching(/JSON array/)] });
    expect(parsePrincipals('[]')).toEqual({ ok: false, problems: ['the file lists no principal'] });
    expect(
      parsePrincipals(JSON.stringify([{ name: API_TOKEN_PRINCIPAL, tokenSha256: DIGEST, scopes: ['admin'] }]), [
        API_TOKEN_PRINCIPAL,
      ]),
    ).toEqual({
      ok: false,
      problems: ['entry 1 ("api-token"): the name is taken (by AGENT_API_TOKEN); names must be unique'],
    });
  });

  test('loadApiConfig reads the file beside AGENT_API_TOKEN, and names the file and entry when it is wrong', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'principals-'));
    const good = path.join(dir, 'good.json');
    await writeFile(good, JSON.stringify([{ name: 'viewer', tokenSha256: DIGEST, scopes: ['runs:read'] }]));
    const config = loadApiConfig({ AGENT_API_PRINCIPALS_FILE: good, AGENT_API_TOKEN: 'x'.repeat(16) });
    expect(principalsOf(config.auth).map((principal) => principal.name)).toEqual([API_TOKEN_PRINCIPAL, 'viewer']);
    expect(principalsOf(loadApiConfig({ AGENT_API_PRINCIPALS_FILE: good }).auth).map((p) => p.name)).toEqual([
      'viewer',
    ]);

    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify([{ name: 'viewer', tokenSha256: 'nope', scopes: ['runs:read'] }]));
    expect(() => loadApiConfig({ AGENT_API_PRINCIPALS_FILE: bad })).toThrow(
      /AGENT_API_PRINCIPALS_FILE=".*bad\.json":\n {2}entry 1 \("viewer"\): tokenSha256: /,
    );
    expect(() => loadApiConfig({ AGENT_API_PRINCIPALS_FILE: path.join(dir, 'missing.json') })).toThrow(
      /AGENT_API_PRINCIPALS_FILE=".*missing\.json": cannot read it/,
    );
    expect(() => loadApiConfig({ AGENT_API_PRINCIPALS_FILE: good, AGENT_API_AUTH: 'none' })).toThrow(
      'AGENT_API_AUTH=none and AGENT_API_PRINCIPALS_FILE are both set',
    );
  });
});

describe('authentication and scopes', () => {
  test('a token authenticates as the principal whose digest it has; an unknown or malformed one as nobody', () => {
    const fresh = newApiToken();
    expect(fresh.token).toMatch(/^[0-9a-f]{64}$/);
    expect(fresh.tokenSha256).toBe(tokenSha256(fresh.token));
    const principals = principalsOf({
      token: 'the-api-token-0123',
      principals: [
        { name: 'viewer', tokenSha256: Buffer.from(fresh.tokenSha256, 'hex'), scopes: new Set(['runs:read']) },
      ],
    });
    expect(authenticate(principals, `Bearer ${fresh.token}`)?.name).toBe('viewer');
    expect(authenticate(principals, `bearer   ${fresh.token} `)?.name).toBe('viewer');
    expect(authenticate(principals, 'Bearer the-api-token-0123')?.name).toBe(API_TOKEN_PRINCIPAL);
    expect(authenticate(principals, 'Bearer nope')).toBeUndefined();
    expect(authenticate(principals, fresh.token)).toBeUndefined();
    expect(authenticate(principals, undefined)).toBeUndefined();
  });

  test('admin allows every scope; another scope allows only itself', () => {
    for (const scope of API_SCOPE_NAMES) expect(allows(new Set(['admin']), scope)).toBe(true);
    expect(allows(new Set(['runs:read']), 'runs:read')).toBe(true);
    expect(allows(new Set(['runs:read']), 'approvals:decide')).toBe(false);
  });

  test('the route table: approve and deny need approvals:decide; HEAD is its GET; the probes are open', () => {
    expect(scopeOfRoute('POST', '/runs/:run_id/approve')).toBe('approvals:decide');
    expect(scopeOfRoute('POST', '/runs/:run_id/deny')).toBe('approvals:decide');
    expect(scopeOfRoute('HEAD', '/runs')).toBe('runs:read');
    expect(scopeOfRoute('GET', '/healthz')).toBeNull();
    expect(scopeOfRoute('GET', '/nowhere')).toBeUndefined();
    for (const scope of Object.values(ROUTE_SCOPES)) expect(API_SCOPE_NAMES).toContain(scope);
  });

  test('the guide lists every scope in its table', () => {
    const guide = readFileSync(path.join(__dirname, '../../docs/guide/principals.md'), 'utf8');
    for (const scope of API_SCOPE_NAMES) expect(guide).toMatch(new RegExp(`^\\| \`${scope}\` \\|`, 'm'));
  });

  test('the values of secret query parameters are redacted, other parameters kept', () => {
    expect(redactSecretParameters('/runs?token=tok-1&limit=5&api_key=k2&KEY=k3&access_token=a#x')).toBe(
      '/runs?token=[redacted]&limit=5&api_key=[redacted]&KEY=[redacted]&access_token=[redacted]#x',
    );
    expect(redactSecretParameters('/runs?monkey=banana')).toBe('/runs?monkey=banana');
  });
});

describe('decider names and who decided', () => {
  test('names: plain, at most 100 characters, no control characters', () => {
    for (const name of ['alice', 'ops-bot', 'Zoë Martin', 'svc:deploy/eu', 'CORP\\alice', 'a.b@example.com'])
      expect(deciderNameSchema.safeParse(name).success).toBe(true);
    for (const name of ['', ' alice', 'alice ', 'a\nb', 'a\u0000b', '<script>', 'x'.repeat(101), '-leading'])
      expect(deciderNameSchema.safeParse(name).success).toBe(false);
  });

  test('recorded: the sender’s words, else the message it came in; the policy by name; a timeout', () => {
    expect(decidedBy({ name: 'ops-bot', via: 'api' }, 'update')).toEqual({ name: 'ops-bot', via: 'api' });
    expect(decidedBy({ name: 'alice' }, 'signal')).toEqual({ name: 'alice', via: 'signal' });
    expect(decidedBy(undefined, 'signal')).toEqual({ via: 'signal' });
    expect(decidedBy(undefined, 'update')).toEqual({ via: 'update' });
    expect(decidedBy({ name: 'mallory', via: 'api' }, 'policy', 'transfer-limits')).toEqual({
      name: 'transfer-limits',
      via: 'policy',
    });
    expect(decidedBy({ name: 'mallory' }, 'timeout')).toEqual({ via: 'timeout' });
  });

  test('a decision whose name breaks the rule is refused, naming the field', () => {
    const pending = [
      { callId: 'call-1-1', toolName: 'write_file', arguments: {}, requestedAt: '2026-01-01T00:00:00Z' },
    ];
    const checked = checkDecision(
      { callId: 'call-1-1', decision: 'approve', by: { name: 'eve\nroot', via: 'api' } },
      pending,
      new Map(),
      () => undefined,
    );
    expect(checked).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^Malformed decision: by\.name: letters, digits/),
    });
    const unknownVia = checkDecision(
      { callId: 'call-1-1', decision: 'approve', by: { via: 'policy' } },
      pending,
      new Map(),
      () => undefined,
    );
    expect(unknownVia).toMatchObject({ ok: false, problem: expect.stringContaining('by.via') });
    expect(
      checkDecision(
        { callId: 'call-1-1', decision: 'deny', by: { name: 'alice' } },
        pending,
        new Map(),
        () => undefined,
      ),
    ).toMatchObject({ ok: true, input: { by: { name: 'alice' } } });
  });
});
