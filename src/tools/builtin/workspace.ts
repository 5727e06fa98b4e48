import { lstat, mkdir, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { FILE_TOOL_LIMITS } from '../../shared/defaults/tools';
import { FileToolError, toFileToolError } from './file-tool-error';

/**
 * A directory the file tools may not leave. Paths from the model are taken
 * relative to it; `..`, absolute paths elsewhere and symbolic links that lead
 * out are refused.
 */
export class Workspace {
  private rootReal?: string;

  constructor(readonly root: string) {}

  /** The absolute path `requested` names inside the workspace, or an error the model can act on. */
  async resolve(requested: string): Promise<string> {
    return (await this.locate(requested)).target;
  }

  /**
   * Where `requested` leads: the path as named (`target`, for messages) and, checked inside the workspace, its
   * real path's components below the root, which {@link openConfined} opens without following a link.
   */
  async locate(requested: string): Promise<{ target: string; rootReal: string; components: string[] }> {
    const root = await this.realRoot();
    const target = path.resolve(root, requested);
    const real = isInside(root, target) ? await this.realTarget(target, requested) : undefined;
    if (real === undefined || !isInside(root, real)) {
      throw new FileToolError({
        code: 'EOUTSIDE',
        path: requested,
        message: `path "${requested}" is outside the workspace; use a path relative to the workspace root (for example "notes.md").`,
      });
    }
    const below = path.relative(root, real);
    return { target, rootReal: root, components: below === '' ? [] : below.split(path.sep) };
  }

  /**
   * `error` from working on `absolute` as the model should read it: named by
   * its path relative to the root (the error's own path when that is inside
   * the workspace and more precise), never by the server's absolute path.
   */
  describeError(error: unknown, absolute: string): Error {
    const root = this.rootReal ?? this.root;
    const errorPath = (error as NodeJS.ErrnoException | undefined)?.path;
    const named =
      errorPath !== undefined && isInside(root, path.resolve(errorPath)) ? path.resolve(errorPath) : absolute;
    return toFileToolError(error, this.relative(named), root);
  }

  private async realTarget(target: string, requested: string): Promise<string> {
    try {
      return await realpathOfExisting(target);
    } catch (error) {
      // A link loop or a file used as a directory: say so with the model's own path.
      throw toFileToolError(error, requested, this.rootReal ?? this.root);
    }
  }

  /** `absolute` as the model should see it: relative to the root, with `/` separators. */
  relative(absolute: string): string {
    return (
      path
        .relative(this.rootReal ?? this.root, absolute)
        .split(path.sep)
        .join('/') || '.'
    );
  }

  private async realRoot(): Promise<string> {
    if (this.rootReal === undefined) {
      await mkdir(this.root, { recursive: true });
      this.rootReal = await realpath(this.root);
    }
    return this.rootReal;
  }
}

function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  // `..notes.md` is a file inside; only `..` itself or `../...` leaves.
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/**
 * Where `target` really leads: the real path of its nearest existing
 * ancestor with the missing rest appended, following dangling links too, so
 * a link to a file that does not exist yet cannot carry a write out.
 */
async function realpathOfExisting(target: string): Promise<string> {
  let current = target;
  const missing: string[] = [];
  for (let hops = 0; hops <= FILE_TOOL_LIMITS.linkHops;) {
    try {
      return path.join(await realpath(current), ...[...missing].reverse());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const link = await lstat(current).catch(() => undefined);
    if (link?.isSymbolicLink()) {
      current = path.resolve(path.dirname(current), await readlink(current));
      hops += 1;
      continue;
    }
    const parent = path.dirname(current);
    if (parent === current) return target;
    missing.push(path.basename(current));
    current = parent;
  }
  throw Object.assign(new Error('too many symbolic links'), { code: 'ELOOP' });
}
