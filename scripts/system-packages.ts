import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { findOnPath, isExecutable, type Log } from '../src/dev-server/go-tool';
import { postgresBinDirectory } from '../dev/stack/postgres';

/**
 * The system packages some tests need, which npm cannot bring: Debian's Chromium (the web UI tests drive it headless
 * with playwright-core) and PostgreSQL's server (the stack tests start clusters of their own). The suite installs
 * them on first use where it may (root, with apt-get), as it builds the Temporal CLI, and otherwise stops at once
 * with the command to run.
 */
export interface SystemPackage {
  /** Debian's package name, as apt-get takes it. */
  debian: string;
  /** What it is, for a person. */
  description: string;
  /** The test files that need it, or folders of them, relative to the project. */
  neededBy: readonly string[];
  /** Whether it is installed. */
  present(): Promise<boolean>;
}

/** Where the tests find Chromium (Debian's package puts it there). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

export const SYSTEM_PACKAGES: readonly SystemPackage[] = [
  {
    debian: 'chromium',
    description: `Chromium (${CHROMIUM_PATH}, driven headless by the web UI tests)`,
    // The last one checks that the packages are there once provisioned.
    neededBy: [
      'test/integration/codec-server-web-ui.test.ts',
      'test/integration/console-browser.test.ts',
      'test/integration/ui-chat-browser.test.ts',
      'test/stack/stack.test.ts',
      'test/unit/system-packages.test.ts',
    ],
    present: () => isExecutable(CHROMIUM_PATH),
  },
  {
    debian: 'postgresql',
    description: "PostgreSQL's server programs (the stack tests start clusters of their own)",
    neededBy: ['test/stack/', 'test/unit/stack-compose.test.ts', 'test/unit/system-packages.test.ts'],
    present: () =>
      postgresBinDirectory().then(
        () => true,
        () => false,
      ),
  },
];

/** An install as big as Chromium's takes minutes on a slow mirror; past this it is stuck, and the suite says so. */
const INSTALL_TIMEOUT_MS = 20 * 60_000;

/** What the suite does about its system packages. */
export type SystemPackagePlan =
  | { kind: 'present' }
  | { kind: 'install'; packages: string[]; commands: string[][] }
  | { kind: 'not-installable'; packages: string[]; message: string };

/**
 * Decides what to do about the `missing` packages (Debian names): nothing when none is missing; install them when
 * this process is root and has apt-get; otherwise stop with the exact command a person runs.
 */
export function planSystemPackages(situation: {
  missing: readonly SystemPackage[];
  root: boolean;
  aptGet: boolean;
}): SystemPackagePlan {
  const packages = situation.missing.map((each) => each.debian);
  if (packages.length === 0) return { kind: 'present' };
  if (situation.root && situation.aptGet) {
    return {
      kind: 'install',
      packages,
      commands: [
        ['apt-get', 'update'],
        ['apt-get', 'install', '-y', ...packages],
      ],
    };
  }
  const sudo = situation.root ? '' : 'sudo ';
  const command = `${sudo}apt-get update && ${sudo}apt-get install -y ${packages.join(' ')}`;
  const what = situation.missing.map((each) => `  - ${each.debian}: ${each.description}`).join('\n');
  const why = situation.aptGet
    ? 'this process is not root, so it does not install them itself'
    : 'this machine has no apt-get (the tests expect Debian or Ubuntu)';
  return {
    kind: 'not-installable',
    packages,
    message:
      `The tests need system packages that are not installed, and ${why}:\n${what}\nRun:\n  ${command}\n` +
      (situation.aptGet
        ? 'then the tests again.'
        : `On another system, install Chromium as ${CHROMIUM_PATH} and PostgreSQL's server (initdb, postgres), then the tests again.`),
  };
}

/**
 * The packages the test files in `testFiles` need (absolute paths, or relative to `root`); all of them when
 * `testFiles` is undefined (the whole suite).
 */
export function packagesFor(root: string, testFiles: readonly string[] | undefined): SystemPackage[] {
  if (testFiles === undefined) return [...SYSTEM_PACKAGES];
  const relative = testFiles.map((file) => path.relative(root, path.resolve(root, file)).split(path.sep).join('/'));
  return SYSTEM_PACKAGES.filter((each) =>
    each.neededBy.some((needed) =>
      relative.some((file) => (needed.endsWith('/') ? file.startsWith(needed) : file === needed)),
    ),
  );
}

/**
 * Makes sure `packages` are installed: does nothing when they are; installs the missing ones with apt-get (its
 * output as progress lines) when it may; otherwise throws at once with the command to run. Returns what it installed.
 */
export async function provisionSystemPackages(packages: readonly SystemPackage[], log: Log): Promise<string[]> {
  const missing: SystemPackage[] = [];
  for (const each of packages) if (!(await each.present())) missing.push(each);
  const plan = planSystemPackages({
    missing,
    root: process.getuid?.() === 0,
    aptGet: (await findOnPath('apt-get', process.env)) !== undefined,
  });
  if (plan.kind === 'present') return [];
  if (plan.kind === 'not-installable') throw new Error(plan.message);
  log(`Installing Debian's ${plan.packages.join(', ')} for the tests (once; minutes the first time)...`);
  for (const command of plan.commands) await runWithProgress(command, log);
  const still = [];
  for (const each of missing) if (!(await each.present())) still.push(each.debian);
  if (still.length > 0)
    throw new Error(`apt-get installed ${plan.packages.join(' ')}, yet ${still.join(', ')} is missing.`);
  log(`Installed ${plan.packages.join(', ')}.`);
  return plan.packages;
}

/** Runs `command` to its end, each line it prints logged as progress; throws on a failure, with its last lines. */
export function runWithProgress([program, ...args]: string[], log: Log): Promise<void> {
  return new Promise((resolve, reject) => {
    log(`$ ${[program, ...args].join(' ')}`);
    const child = spawn(program ?? '', args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: INSTALL_TIMEOUT_MS,
    });
    const tail: string[] = [];
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => {
        tail.push(line);
        if (tail.length > 20) tail.shift();
        log(`  ${line}`);
      });
    }
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else {
        reject(
          new Error(`${program} ${args.join(' ')} failed (${signal ?? `exit code ${code}`}):\n${tail.join('\n')}`),
        );
      }
    });
  });
}
