import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The version package.json and package-lock.json carry is the one the
 * CHANGELOG's topmost section names, and the README says how to install the
 * unpublished package: a release that forgets one of them fails here.
 */
const ROOT = path.join(__dirname, '..', '..');

function read(file: string): string {
  return readFileSync(path.join(ROOT, file), 'utf8');
}

/** The version in the CHANGELOG's first `## ` heading, e.g. `Unreleased (0.3.0)` or `0.2.0`. */
function changelogVersion(): string {
  const heading = read('CHANGELOG.md')
    .split('\n')
    .find((line) => line.startsWith('## '));
  const version = /(\d+\.\d+\.\d+)/.exec(heading ?? '')?.[1];
  if (version === undefined) throw new Error(`no version in the CHANGELOG's first heading: ${String(heading)}`);
  return version;
}

describe('package version', () => {
  it('package.json names the version of the CHANGELOG topmost section', () => {
    const pkg = JSON.parse(read('package.json')) as { version: string };
    expect(pkg.version).toBe(changelogVersion());
  });

  it('package-lock.json names the same version for the package itself', () => {
    const lock = JSON.parse(read('package-lock.json')) as {
      version: string;
      packages: Record<string, { version?: string }>;
    };
    expect([lock.version, lock.packages['']?.version]).toEqual([changelogVersion(), changelogVersion()]);
  });

  it('the README installs the package from a packed tarball, not from the registry', () => {
    const readme = read('README.md');
    expect(readme).not.toMatch(/npm install agent-runner /);
    expect(readme).toMatch(/npm pack/);
    expect(readme).toMatch(/npm install \S*agent-runner-\S*\.tgz/);
  });
});
