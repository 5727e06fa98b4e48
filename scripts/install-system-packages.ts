import { provisionSystemPackages, SYSTEM_PACKAGES } from './system-packages';

/**
 * `npm run system:install`: what the suite does on its first run, on its own: installs the system packages the tests
 * need (Debian's chromium and postgresql) when they are missing and this is root with apt-get, otherwise names the
 * command to run. Installed already, it says so and changes nothing.
 */
async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const installed = await provisionSystemPackages(SYSTEM_PACKAGES, log);
  for (const each of SYSTEM_PACKAGES) {
    log(
      `${each.debian} is ${installed.includes(each.debian) ? 'installed now' : 'already installed'}: ${each.description}.`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
