import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startDevServer, type StartedDevServer } from '../src/dev-server/dev-server';
import { checkContents } from './package-contents';

/**
 * `npm run package:check`: the package as a new user gets it. Packs the tarball (`prepack` builds dist/), checks what
 * it holds, installs it with its peers from the registry into fresh apps (CommonJS, ESM, and one on the low end of
 * the Temporal peer range), typechecks docs/snippets there under `tsc --init`'s strict settings, and runs one agent
 * through `AgentRunnerPlugin` on each app's own worker against a dev server, with the scripted model from
 * `agent-runner/testing`. Prints its progress; exits non-zero on the first failure.
 */

const ROOT = path.resolve(__dirname, '..');
const SNIPPETS = path.join(ROOT, 'docs', 'snippets');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const TEMPORAL_PACKAGES = [
  '@temporalio/activity',
  '@temporalio/client',
  '@temporalio/common',
  '@temporalio/envconfig',
  '@temporalio/plugin',
  '@temporalio/worker',
  '@temporalio/workflow',
];

/** A fresh app: its module system and the versions of the peers it installs. */
interface AppSpec {
  name: string;
  type: 'commonjs' | 'module';
  temporal: string;
  zod: string;
}

const started = Date.now();
function progress(line: string): void {
  console.log(`[package:check ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}`);
}

/** Runs a command to its end; throws with its output when it fails. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} (in ${cwd}) exited with ${code}:\n${output}`));
    });
  });
}

async function main(): Promise<void> {
  const packageJson = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | Record<string, string>>;
    peerDependencies: Record<string, string>;
  };
  const work = await mkdtemp(path.join(os.tmpdir(), 'agent-runner-package-check-'));
  let server: StartedDevServer | undefined;
  try {
    progress('npm pack (prepack builds dist/)');
    // Without --ignore-scripts: prepack's build is part of what is checked. Its output comes before the JSON.
    const packOutput = await run('npm', ['pack', '--json', '--pack-destination', work], ROOT);
    const packed = JSON.parse(packOutput.slice(packOutput.search(/^\[$/m))) as [
      { filename: string; files: { path: string }[] },
    ];
    const tarball = path.join(work, packed[0].filename);
    checkContents(
      packed[0].files.map((file) => file.path),
      packageJson.exports,
    );
    await checkDeclarations(work, tarball);
    progress(
      `${packed[0].filename}: ${packed[0].files.length} files; no tests, benches, fixtures or sources; LICENSE, README; declarations complete`,
    );

    const lowTemporal = minimumOf(packageJson.peerDependencies['@temporalio/worker']);
    const lowZod = minimumOf(packageJson.peerDependencies.zod);
    const apps: AppSpec[] = [
      {
        name: 'app-cjs',
        type: 'commonjs',
        temporal: packageJson.peerDependencies['@temporalio/worker'] ?? 'latest',
        zod: packageJson.peerDependencies.zod ?? 'latest',
      },
      {
        name: 'app-esm',
        type: 'module',
        temporal: packageJson.peerDependencies['@temporalio/worker'] ?? 'latest',
        zod: packageJson.peerDependencies.zod ?? 'latest',
      },
      { name: 'app-low', type: 'commonjs', temporal: lowTemporal, zod: lowZod },
    ];
    progress('starting a Temporal dev server (the cached CLI)');
    const serverStart = startDevServer({ port: 0, uiPort: 0, log: (line) => progress(line) });
    // The installs wait on the registry and the disk more than on the CPU: all at once.
    progress(
      `installing the tarball with its peers into ${apps.map((app) => `${app.name} (@temporalio/* ${app.temporal}, zod ${app.zod})`).join(', ')}`,
    );
    const appDirectories = await Promise.all(apps.map((app) => createApp(work, app, tarball)));
    server = await serverStart;
    progress(`dev server at ${server.address}`);
    for (const [index, app] of apps.entries()) {
      const directory = appDirectories[index] ?? '';
      const versions = await installedVersions(directory);
      progress(`${app.name}: installed ${versions}; typechecking docs/snippets (strict, exactOptionalPropertyTypes)`);
      await run(process.execPath, [TSC, '-p', 'tsconfig.json'], directory);
      progress(`${app.name}: running one agent through AgentRunnerPlugin on the app's own worker`);
      const output = await run(process.execPath, ['out/main.js'], directory, {
        ...process.env,
        TEMPORAL_ADDRESS: server.address,
      });
      const answer = output.trim().split('\n').pop();
      if (answer !== 'Order 42 has shipped.')
        throw new Error(`${app.name}: the agent answered ${JSON.stringify(answer)}; the whole output:\n${output}`);
      progress(`${app.name}: the agent answered "${answer}"`);
      if (index === 0) await checkCommand(directory);
    }
    progress('all checks passed');
  } finally {
    await server?.stop();
    await rm(work, { recursive: true, force: true });
  }
}

/** Every relative import of every shipped .d.ts resolves to a shipped .d.ts: the declarations are complete. */
async function checkDeclarations(work: string, tarball: string): Promise<void> {
  const unpacked = path.join(work, 'unpacked');
  await mkdir(unpacked);
  await run('tar', ['xzf', tarball, '-C', unpacked], work);
  const root = path.join(unpacked, 'package');
  const declarations = (await readdir(root, { recursive: true })).filter((file) => file.endsWith('.d.ts'));
  const shipped = new Set(declarations.map((file) => path.join(root, file)));
  const missing: string[] = [];
  for (const file of declarations) {
    const text = await readFile(path.join(root, file), 'utf8');
    for (const match of text.matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = path.resolve(path.dirname(path.join(root, file)), match[1] ?? '');
      if (
        ![`${target}.d.ts`, path.join(target, 'index.d.ts'), target.replace(/\.js$/, '.d.ts')].some((candidate) =>
          shipped.has(candidate),
        )
      ) {
        missing.push(`${file} imports ${match[1]}`);
      }
    }
  }
  if (missing.length > 0)
    throw new Error(`Declarations that import what the tarball lacks:\n- ${missing.join('\n- ')}`);
}

/**
 * The installed `agent-runner` command runs the built CLI, not the sources through tsx (neither is shipped or
 * installed). commander is an optional peer: where the app has none the command asks for it; where one arrives with
 * another package (webpack's terser brings one), the built CLI prints its help.
 */
async function checkCommand(directory: string): Promise<void> {
  const outcome = await run(
    process.execPath,
    [path.join('node_modules', 'agent-runner', 'bin', 'agent-runner.js'), '--help'],
    directory,
  ).then(
    (output) =>
      output.includes('Usage: agent-runner')
        ? 'printed its help'
        : new Error(`agent-runner --help printed no usage:\n${output}`),
    (error: unknown) =>
      error instanceof Error && error.message.includes('npm install commander') ? 'asked for commander' : error,
  );
  if (typeof outcome !== 'string') throw outcome;
  progress(`the installed agent-runner command runs dist/cli: it ${outcome}`);
}

/** `^1.23.0` → `1.23.0`: the low end of a caret range. */
function minimumOf(range: string | undefined): string {
  const match = /^\^?(\d+\.\d+\.\d+)$/.exec(range ?? '');
  if (match?.[1] === undefined) throw new Error(`Cannot read the low end of the peer range ${range}`);
  return match[1];
}

/** A fresh app with the tarball, its peers from the registry and the snippets, plus the entry that runs them. */
async function createApp(work: string, app: AppSpec, tarball: string): Promise<string> {
  const directory = path.join(work, app.name);
  await mkdir(directory);
  await writeFile(
    path.join(directory, 'package.json'),
    JSON.stringify({ name: app.name, private: true, type: app.type }, null, 2),
  );
  // `tsc --init`'s strict settings; verbatimModuleSyntax only where the app is ESM (a CommonJS app cannot write `import`).
  const compilerOptions = {
    target: 'es2022',
    module: 'nodenext',
    rootDir: '.',
    outDir: 'out',
    types: ['node'],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    isolatedModules: true,
    noUncheckedSideEffectImports: true,
    moduleDetection: 'force',
    skipLibCheck: true,
    ...(app.type === 'module' ? { verbatimModuleSyntax: true } : {}),
  };
  await writeFile(
    path.join(directory, 'tsconfig.json'),
    JSON.stringify({ compilerOptions, include: ['*.ts'] }, null, 2),
  );
  for (const file of await readdir(SNIPPETS)) await cp(path.join(SNIPPETS, file), path.join(directory, file));
  await writeFile(path.join(directory, 'main.ts'), app.type === 'module' ? ESM_MAIN : CJS_MAIN);
  const peers = [
    ...TEMPORAL_PACKAGES.map((name) => `${name}@${app.temporal}`),
    `zod@${app.zod}`,
    'fastify',
    '@types/node@24',
  ];
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball, ...peers], directory);
  return directory;
}

/** The versions of the SDK and zod an app got, and whether it holds one copy of @temporalio/workflow. */
async function installedVersions(directory: string): Promise<string> {
  const version = async (name: string) =>
    (
      JSON.parse(await readFile(path.join(directory, 'node_modules', name, 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
  const nested = await readdir(path.join(directory, 'node_modules', 'agent-runner', 'node_modules')).catch(
    (): string[] => [],
  );
  if (nested.includes('@temporalio') || nested.includes('zod'))
    throw new Error(
      `${directory}: npm nested a second copy of the SDK or zod inside agent-runner: ${nested.join(', ')}`,
    );
  return `@temporalio/worker ${await version('@temporalio/worker')}, zod ${await version('zod')}, one copy of each`;
}

const CJS_MAIN = `import { runOneAgent } from './run-one-agent.js';

runOneAgent(process.env.TEMPORAL_ADDRESS ?? 'localhost:7233', require.resolve('./workflows'))
  .then((answer) => console.log(answer))
  .catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
`;

const ESM_MAIN = `import { fileURLToPath } from 'node:url';
import { runOneAgent } from './run-one-agent.js';

try {
  console.log(await runOneAgent(process.env.TEMPORAL_ADDRESS ?? 'localhost:7233', fileURLToPath(new URL('./workflows.js', import.meta.url))));
} catch (error) {
  console.error(error);
  process.exit(1);
}
`;

main().then(
  () => progress(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`),
  (error: unknown) => {
    progress('FAILED');
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
