import { createSession, isValidSession, readCookie } from '../../src/codec-server/session';

/** The codec server's sign-in cookie: an expiry signed with the token, checked without any stored state. */
describe('the codec server session', () => {
  const token = 'session-token-0123456789';

  test('a session made with the token is valid until it expires', () => {
    const session = createSession(token, 2_000);
    expect(isValidSession(token, session, 1_999)).toBe(true);
    expect(isValidSession(token, session, 2_000)).toBe(false);
  });

  test('another token, an altered expiry or signature, or garbage is not a session', () => {
    const session = createSession(token, 5_000);
    expect(isValidSession('another-token-0123456789', session, 0)).toBe(false);
    expect(isValidSession(token, session.replace(/^5000/, '9000'), 0)).toBe(false);
    expect(isValidSession(token, `${session.slice(0, -1)}${session.endsWith('A') ? 'B' : 'A'}`, 0)).toBe(false);
    for (const garbage of [undefined, '', token, '5000', '5000.', 'x.y', `${'9'.repeat(40)}.${'A'.repeat(43)}`]) {
      expect(isValidSession(token, garbage, 0)).toBe(false);
    }
  });

  test('the session names no part of the token', () => {
    expect(createSession(token, 5_000)).not.toContain(token.slice(0, 8));
  });

  test('readCookie finds a cookie among others', () => {
    expect(readCookie('a=1; agent_codec_session=v.s; b=2', 'agent_codec_session')).toBe('v.s');
    expect(readCookie('a=1', 'agent_codec_session')).toBeUndefined();
    expect(readCookie(undefined, 'agent_codec_session')).toBeUndefined();
  });
});
