import type * as Testing from '../../src/testing';

/**
 * `agent-runner/testing` loaded where `fastify` cannot be found names the
 * package to install; fastify is made unavailable by a module factory that
 * throws the error Node throws for a missing package.
 */
describe('agent-runner/testing without fastify', () => {
  it('fails naming the package and the command to install it', () => {
    jest.isolateModules(() => {
      jest.doMock('fastify', () => {
        throw Object.assign(new Error("Cannot find module 'fastify'"), { code: 'MODULE_NOT_FOUND' });
      });
      expect(() => jest.requireActual('../../src/testing')).toThrow(
        /needs the optional peer dependency 'fastify'.*npm install --save-dev fastify/,
      );
      jest.dontMock('fastify');
    });
  });

  it('loads when fastify is there', () => {
    jest.isolateModules(() => {
      const testing = jest.requireActual<typeof Testing>('../../src/testing');
      expect(typeof testing.ScriptedModelServer.start).toBe('function');
    });
  });
});
