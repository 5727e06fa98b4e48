/** Loading `agent-runner/testing` without `fastify` fails naming the package to install, not with a bare module error. */
try {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a probe that must run before the scripted model loads
  require('fastify');
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
  throw new Error(
    "agent-runner/testing needs the optional peer dependency 'fastify' for its scripted model: run `npm install --save-dev fastify`",
    { cause: error },
  );
}
