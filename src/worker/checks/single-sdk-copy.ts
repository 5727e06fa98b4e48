import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { BundleOptions } from '@temporalio/worker';
import { SecondSdkCopyError } from './second-sdk-copy-error';

/** The SDK package whose copies must be one: workflow code from two copies fails every workflow task. */
const WORKFLOW_PACKAGE = '@temporalio/workflow';

/**
 * Refuses at `Worker.create` a bundle that would hold two copies of `@temporalio/workflow` (the bundler resolves each
 * import from the importing file's directory): with two, every workflow task fails and every run hangs.
 */
export function refuseSecondSdkCopy(
  options: Pick<BundleOptions, 'workflowsPath' | 'workflowInterceptorModules'>,
): void {
  const ours = workflowPackageFrom(__dirname);
  if (ours === undefined) return;
  const importers = [
    ...(options.workflowsPath === undefined
      ? []
      : [{ what: `your workflows (${options.workflowsPath})`, file: options.workflowsPath }]),
    ...(options.workflowInterceptorModules ?? []).map((file) => ({
      what: `the workflow interceptor module ${file}`,
      file,
    })),
  ];
  for (const importer of importers) {
    const theirs = workflowPackageFrom(path.dirname(realPath(importer.file)));
    if (theirs !== undefined && theirs !== ours)
      throw new SecondSdkCopyError({ ours, theirs, importer: importer.what });
  }
}

/** The directory of the `@temporalio/workflow` that `directory` resolves (its real path), if it resolves one. */
export function workflowPackageFrom(directory: string): string | undefined {
  let entry: string;
  try {
    entry = require.resolve(WORKFLOW_PACKAGE, { paths: [directory] });
  } catch {
    return undefined;
  }
  const marker = path.join('node_modules', WORKFLOW_PACKAGE) + path.sep;
  const at = entry.lastIndexOf(marker);
  return realPath(at === -1 ? path.dirname(entry) : entry.slice(0, at + marker.length - 1));
}

function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}
