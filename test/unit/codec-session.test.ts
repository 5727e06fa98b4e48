import { LoginThrottle } from '../../src/codec-server/login-throttle';
import { readCookie } from '../../src/http/browser-sessions';
import { CodecSessions } from '../../src/codec-server/session';

/** The codec server's sign-in: sessions held by the server, signed with its own random key; failed sign-ins counted. */
describe('the codec server session', () => {
  test('a session is valid until it expires or is revoked', () => {
    const sessions = new CodecSessions(2_000, 10);
    const { value, expiresAt } = sessions.create(0);
    expect(expiresAt).toBe(2_000);
    expect(sessions.isValid(value, 1_999)).toBe(true);
    expect(sessions.isValid(value, 2_000)).toBe(false);
    const other = sessions.create(0).value;
    sessions.revoke(other);
    expect(sessions.isValid(other, 1)).toBe(false);
    expect(sessions.isValid(value, 1)).toBe(true);
  });

  test("another process's session, an altered expiry or signature, or garbage is not a session", () => {
    const sessions = new CodecSessions(5_000, 10);
    const { value } = sessions.create(0);
    expect(new CodecSessions(5_000, 10).isValid(value, 0)).toBe(false);
    const [id, expiry, signature] = value.split('.') as [string, string, string];
    expect(sessions.isValid(`${id}.${Number(expiry) + 1}.${signature}`, 0)).toBe(false);
    const altered = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    expect(sessions.isValid(`${id}.${expiry}.${altered}`, 0)).toBe(false);
    for (const garbage of [undefined, '', '5000', '5000.', 'x.y', `${'A'.repeat(22)}.9999.${'A'.repeat(43)}`])
      expect(sessions.isValid(garbage, 0)).toBe(false);
  });

  test('past the most sessions, the oldest is signed out', () => {
    const sessions = new CodecSessions(5_000, 2);
    const first = sessions.create(0).value;
    const second = sessions.create(0).value;
    const third = sessions.create(0).value;
    expect([first, second, third].map((value) => sessions.isValid(value, 1))).toEqual([false, true, true]);
  });

  test('readCookie finds a cookie among others', () => {
    expect(readCookie('a=1; agent_codec_session=v.s; b=2', 'agent_codec_session')).toBe('v.s');
    expect(readCookie('a=1', 'agent_codec_session')).toBeUndefined();
    expect(readCookie(undefined, 'agent_codec_session')).toBeUndefined();
  });
});

describe('the sign-in throttle', () => {
  test('an address past its failures waits for the end of its window; others do not', () => {
    const throttle = new LoginThrottle({ failures: 2, windowMs: 1_000, maxAddresses: 10 });
    throttle.recordFailure('a', 0);
    expect(throttle.retryAfterMs('a', 10)).toBe(0);
    throttle.recordFailure('a', 100);
    expect(throttle.retryAfterMs('a', 400)).toBe(600);
    expect(throttle.retryAfterMs('b', 400)).toBe(0);
    expect(throttle.retryAfterMs('a', 1_000)).toBe(0);
  });
});
