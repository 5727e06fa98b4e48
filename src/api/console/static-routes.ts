import { readFile, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../http/api-error';

/** Where `npm run build` writes the console's bundle: `dist/console/` of the package, from `src/` or `dist/` alike. */
const CONSOLE_BUNDLE_DIR = resolve(__dirname, '../../../dist/console');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** The page may load and call only its own origin, and no other page may frame it. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
} as const;

/**
 * The console's page and its bundle, from {@link CONSOLE_BUNDLE_DIR}: `GET /console/` the page, `GET /console/:file`
 * one of the files the build wrote (nothing else is served), `GET /console` a redirect to `/console/`.
 */
export function registerStaticRoutes(app: FastifyInstance, bundleDir: string = CONSOLE_BUNDLE_DIR): void {
  let files: Promise<Set<string>> | undefined;
  const listing = () =>
    (files ??= readdir(bundleDir).then(
      (names) => new Set(names),
      () => new Set<string>(),
    ));
  const send = async (name: string) => {
    if (!(await listing()).has(name))
      throw new ApiError(
        'route_not_found',
        name === 'index.html'
          ? `The console is not built: run \`npm run build\` (it writes ${bundleDir}).`
          : `No console file "${name}".`,
      );
    const extension = name.slice(name.lastIndexOf('.'));
    return {
      body: await readFile(join(bundleDir, name)),
      type: CONTENT_TYPES[extension] ?? 'application/octet-stream',
    };
  };
  app.get('/console', async (_request, reply) => reply.redirect('/console/', 302));
  app.get('/console/', async (_request, reply) => {
    const file = await send('index.html');
    return reply.headers(SECURITY_HEADERS).type(file.type).send(file.body);
  });
  app.get<{ Params: { file: string } }>('/console/:file', async (request, reply) => {
    const file = await send(request.params.file);
    return reply.headers(SECURITY_HEADERS).type(file.type).send(file.body);
  });
}
