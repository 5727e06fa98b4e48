import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  CHROMIUM_PATH,
  packagesFor,
  planSystemPackages,
  provisionSystemPackages,
  runWithProgress,
  SYSTEM_PACKAGES,
  type SystemPackage,
} from '../../scripts/system-packages';
import { PROJECT_ROOT } from '../helpers/processes';

/**
 * The suite provisions the system packages its tests need (Debian's chromium and postgresql) on first use: nothing to
 * do when they are there, apt-get when it may, otherwise a stop at once with the exact command.
 */

const chromium = SYSTEM_PACKAGES.find((each) => each.debian === 'chromium')!;
const postgresql = SYSTEM_PACKAGES.find((each) => each.debian === 'postgresql')!;

describe('what the suite does about a system package', () => {
  test('present: nothing', () => {
    expect(planSystemPackages({ missing: [], root: true, aptGet: true })).toEqual({ kind: 'present' });
    expect(planSystemPackages({ missing: [], root: false, aptGet: false })).toEqual({ kind: 'present' });
  });

  test('missing, as root with apt-get: installs exactly the missing packages', () => {
    expect(planSystemPackages({ missing: [chromium, postgresql], root: true, aptGet: true })).toEqual({
      kind: 'install',
      packages: ['chromium', 'postgresql'],
      commands: [
        ['apt-get', 'update'],
        ['apt-get', 'install', '-y', 'chromium', 'postgresql'],
      ],
    });
    expect(planSystemPackages({ missing: [postgresql], root: true, aptGet: true })).toMatchObject({
      kind: 'install',
      packages: ['postgresql'],
    });
  });

  test('missing, not root: stops with the sudo command that installs them', () => {
    const plan = planSystemPackages({ missing: [chromium], root: false, aptGet: true });
    expect(plan.kind).toBe('not-installable');
    const message = plan.kind === 'not-installable' ? plan.message : '';
    expect(message).toContain('this process is not root');
    expect(message).toContain('  - chromium: Chromium (/usr/bin/chromium');
    expect(message).toContain('\n  sudo apt-get update && sudo apt-get install -y chromium\n');
  });

  test('missing, no apt-get: stops with the Debian command and what to install elsewhere', () => {
    const plan = planSystemPackages({ missing: [chromium, postgresql], root: true, aptGet: false });
    const message = plan.kind === 'not-installable' ? plan.message : '';
    expect(message).toContain('this machine has no apt-get');
    expect(message).toContain('apt-get update && apt-get install -y chromium postgresql');
    expect(message).toContain(`install Chromium as ${CHROMIUM_PATH} and PostgreSQL's server`);
  });
});

describe('which packages a run needs', () => {
  test('the whole suite: all of them; a selection: those its files need', () => {
    const names = (packages: SystemPackage[]) => packages.map((each) => each.debian);
    expect(names(packagesFor(PROJECT_ROOT, undefined))).toEqual(['chromium', 'postgresql']);
    expect(names(packagesFor(PROJECT_ROOT, ['test/unit/config.test.ts']))).toEqual([]);
    expect(names(packagesFor(PROJECT_ROOT, ['test/stack/deploys.test.ts']))).toEqual(['postgresql']);
    expect(
      names(packagesFor(PROJECT_ROOT, [path.join(PROJECT_ROOT, 'test/integration/codec-server-web-ui.test.ts')])),
    ).toEqual(['chromium']);
    expect(names(packagesFor(PROJECT_ROOT, ['test/stack/stack.test.ts']))).toEqual(['chromium', 'postgresql']);
  });

  test('every test file that launches Chromium or starts PostgreSQL is listed as needing it', async () => {
    const files = (await readdir(path.join(PROJECT_ROOT, 'test'), { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
      .map((entry) => path.relative(PROJECT_ROOT, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
    const using = async (pattern: RegExp) => {
      const found: string[] = [];
      for (const file of files)
        if (pattern.test(await readFile(path.join(PROJECT_ROOT, file), 'utf8'))) found.push(file);
      return found;
    };
    const launchChromium = await using(/\/usr\/bin\/chromium|CHROMIUM_PATH|chromium\.launch|launchChromium\(/);
    const startPostgres = await using(/\b(startStack|preparePostgres|postgresBinDirectory)\(/);
    expect(launchChromium).toContain('test/integration/codec-server-web-ui.test.ts');
    expect(startPostgres).toContain('test/stack/postgres-password.test.ts');
    for (const file of launchChromium) {
      expect({ file, needs: packagesFor(PROJECT_ROOT, [file]).map((each) => each.debian) }).toEqual({
        file,
        needs: expect.arrayContaining(['chromium']),
      });
    }
    for (const file of startPostgres) {
      expect({ file, needs: packagesFor(PROJECT_ROOT, [file]).map((each) => each.debian) }).toEqual({
        file,
        needs: expect.arrayContaining(['postgresql']),
      });
    }
  });
});

// The suite provisioned both before this file ran (it is listed as needing them).
test('installed, provisioning finds them and does nothing', async () => {
  const lines: string[] = [];
  for (const each of SYSTEM_PACKAGES) expect(await each.present()).toBe(true);
  expect(await provisionSystemPackages(SYSTEM_PACKAGES, (line) => lines.push(line))).toEqual([]);
  expect(lines).toEqual([]);
});

describe('an install command', () => {
  test("prints each line it writes as progress, and a failure ends the setup with the command's last lines", async () => {
    const lines: string[] = [];
    await runWithProgress(['sh', '-c', 'echo Unpacking chromium; echo Setting up chromium >&2'], (line) =>
      lines.push(line),
    );
    // Its command first; then its lines, standard output and error each in order, interleaved as they come.
    expect(lines[0]).toBe('$ sh -c echo Unpacking chromium; echo Setting up chromium >&2');
    expect(lines.slice(1).sort()).toEqual(['  Setting up chromium', '  Unpacking chromium']);
    await expect(runWithProgress(['sh', '-c', 'echo E: Unable to locate package; exit 100'], () => {})).rejects.toThrow(
      /sh -c echo E: Unable to locate package; exit 100 failed \(exit code 100\):\nE: Unable to locate package/,
    );
  });
});
