import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * The versions of the production shape. `docker-compose.yml` names them (its images' tags) and `npm run stack` reads
 * them from there, so the compose file and the stack on this machine never drift apart: one file, both shapes.
 */
export interface StackVersions {
  /** `go.temporal.io/server`, e.g. `1.29.1` (the `temporalio/auto-setup` and `admin-tools` tag). */
  temporal: string;
  /** `github.com/temporalio/ui-server/v2`, e.g. `2.42.1` (the `temporalio/ui` tag). */
  ui: string;
  /** PostgreSQL's major version, e.g. `15` (the `postgres` tag). */
  postgres: string;
}

/** The compose file at the root of the project. */
export const COMPOSE_FILE = path.resolve(__dirname, '..', '..', 'docker-compose.yml');

interface ComposeFile {
  services?: Record<string, { image?: string } | undefined>;
}

/** Reads the versions from the images of `docker-compose.yml`; throws naming the service whose image it can't read. */
export async function readStackVersions(file = COMPOSE_FILE): Promise<StackVersions> {
  const compose = parse(await readFile(file, 'utf8')) as ComposeFile;
  const tag = (service: string, image: string): string => {
    const named = compose.services?.[service]?.image;
    const match = named === undefined ? null : new RegExp(`^${image.replace('/', '\\/')}:([0-9][\\w.-]*)$`).exec(named);
    if (match?.[1] === undefined) {
      throw new Error(`${file}: service "${service}" must use the image ${image}:<version>; found ${named ?? 'none'}.`);
    }
    return match[1];
  };
  const temporal = tag('temporal', 'temporalio/auto-setup');
  const adminTools = tag('temporal-search-attributes', 'temporalio/admin-tools');
  if (adminTools !== temporal) {
    throw new Error(`${file}: temporalio/admin-tools:${adminTools} must match temporalio/auto-setup:${temporal}.`);
  }
  return { temporal, ui: tag('temporal-ui', 'temporalio/ui'), postgres: tag('postgresql', 'postgres') };
}
