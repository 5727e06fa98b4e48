import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * The Dockerfile's build stage copies every file `npm run build` reads (docker is not needed: this reads the files), and
 * the programs the image and docker-compose.yml start are files that build produces.
 */

const ROOT = path.join(__dirname, '../..');

/** One Dockerfile instruction, with its continuation lines joined. */
interface Instruction {
  keyword: string;
  args: string;
}

function dockerfileInstructions(text: string): Instruction[] {
  const joined = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** A COPY's sources, in shell form or JSON form, without its flags and destination. */
function copySources(args: string): { sources: string[]; fromStage: boolean } {
  const words = args.trim().startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/);
  const flags = words.filter((word) => word.startsWith('--'));
  const paths = words.filter((word) => !word.startsWith('--'));
  return {
    sources: paths.slice(0, -1).map((source) => path.normalize(source).replace(/\/$/, '')),
    fromStage: flags.some((flag) => flag.startsWith('--from')),
  };
}

/** What the build stage has copied from the context before it runs `npm run build`. */
function copiedBeforeBuild(): string[] {
  const instructions = dockerfileInstructions(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
  const buildAt = instructions.findIndex((step) => step.keyword === 'RUN' && /\bnpm run build\b/.test(step.args));
  if (buildAt < 0) throw new Error('the Dockerfile never runs `npm run build`');
  const stageAt = instructions.slice(0, buildAt).findLastIndex((step) => step.keyword === 'FROM');
  return instructions
    .slice(stageAt + 1, buildAt)
    .filter((step) => step.keyword === 'COPY' || step.keyword === 'ADD')
    .map((step) => copySources(step.args))
    .filter((copy) => !copy.fromStage)
    .flatMap((copy) => copy.sources);
}

/** A tsconfig file and every file it extends, with the folders and files the nearest one to say so includes. */
function tsconfigInputs(file: string, includedAlready = false): string[] {
  const config = JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as {
    extends?: string;
    include?: string[];
    files?: string[];
  };
  const here = path.dirname(file);
  // An extending file's include and files replace its base's.
  const says = config.include !== undefined || config.files !== undefined;
  const own = includedAlready ? [] : [...(config.include ?? []), ...(config.files ?? [])];
  const base =
    config.extends === undefined ? [] : tsconfigInputs(path.join(here, config.extends), includedAlready || says);
  return [file, ...own.map((entry) => path.join(here, entry)), ...base];
}

/** The file a relative import names, as TypeScript resolves it. */
function resolveImport(fromFile: string, specifier: string): string | undefined {
  const base = path.join(path.dirname(fromFile), specifier);
  const candidates = [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')];
  return candidates.find(
    (candidate) => existsSync(path.join(ROOT, candidate)) && statSync(path.join(ROOT, candidate)).isFile(),
  );
}

/** A script and every file it imports by a relative path, transitively. */
function scriptInputs(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import\(|require\()\s*'(\.{1,2}\/[^']+)'/g)].map(
    (match) => match[1] ?? '',
  );
  for (const specifier of specifiers) {
    const resolved = resolveImport(file, specifier);
    if (resolved === undefined) throw new Error(`${file} imports ${specifier}, which is not a file`);
    scriptInputs(resolved, seen);
  }
  return [...seen];
}

/** Every file or folder `npm run build` reads, read from package.json's build script. */
function buildInputs(): string[] {
  const scripts = (
    JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  const build = scripts.build ?? '';
  const inputs = ['package.json', 'package-lock.json'];
  for (const command of build.split('&&').map((part) => part.trim().split(/\s+/))) {
    const [program, ...args] = command;
    if (program === 'tsc') inputs.push(...tsconfigInputs(args[args.indexOf('-p') + 1] ?? 'tsconfig.json'));
    else if (program === 'tsx') inputs.push(...scriptInputs(args[0] ?? ''));
    else throw new Error(`the build runs ${program ?? ''}, which this test cannot read the inputs of`);
  }
  return [...new Set(inputs.map((input) => path.normalize(input)))];
}

function isCopied(input: string, copied: string[]): boolean {
  return copied.some((source) => source === '.' || input === source || input.startsWith(`${source}/`));
}

describe('the Dockerfile', () => {
  test('copies every file `npm run build` reads before it runs the build', () => {
    const inputs = buildInputs();
    expect(inputs).toEqual(
      expect.arrayContaining(['tsconfig.build.json', 'tsconfig.json', 'src', 'scripts/build-console.ts']),
    );
    const copied = copiedBeforeBuild();
    expect(inputs.filter((input) => !isCopied(input, copied))).toEqual([]);
  });

  test('sends every build input in the context (.dockerignore leaves them in)', () => {
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim().replace(/\/$/, ''))
      .filter((line) => line !== '' && !line.startsWith('#'));
    expect(
      buildInputs().filter((input) => ignored.some((entry) => input === entry || input.startsWith(`${entry}/`))),
    ).toEqual([]);
  });

  test("starts programs the build produces: the image's CMD and docker-compose.yml's commands", () => {
    const instructions = dockerfileInstructions(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
    const cmd = instructions.findLast((step) => step.keyword === 'CMD');
    const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as {
      services: Record<string, { build?: unknown; command?: string[] }>;
    };
    const commands = [
      JSON.parse(cmd?.args ?? '[]') as string[],
      ...Object.values(compose.services)
        .filter((service) => service.build !== undefined && service.command !== undefined)
        .map((service) => service.command ?? []),
    ];
    const programs = commands.map((command) => command.find((word) => word.startsWith('dist/')) ?? command.join(' '));
    expect(programs.length).toBeGreaterThan(1);
    // tsc -p tsconfig.build.json writes src/<path>.ts to dist/<path>.js.
    const missing = programs.filter((program) => {
      const source = program.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts');
      return !program.startsWith('dist/') || !existsSync(path.join(ROOT, source));
    });
    expect(missing).toEqual([]);
  });
});
