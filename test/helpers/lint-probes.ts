import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Probes of the repository's lint config: each probe is linted by ESLint with that config, as the content of an
 * existing file (the typed parser only knows files of the project).
 */
const root = path.join(__dirname, '..', '..');

export interface LintMessage {
  ruleId: string | null;
  message: string;
}

/** Lints each probe as the content of an existing file, in one ESLint process (the typed parser loads the project once). */
export async function lintAll(probes: { file: string; code: string }[]): Promise<LintMessage[][]> {
  const script = `
    const { ESLint } = require('eslint');
    const probes = JSON.parse(process.argv[1]);
    (async () => {
      const eslint = new ESLint({ cwd: process.cwd() });
      const out = [];
      for (const probe of probes) out.push((await eslint.lintText(probe.code, { filePath: probe.file }))[0].messages);
      process.stdout.write(JSON.stringify(out));
    })().catch((error) => { console.error(error); process.exit(2); });`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, JSON.stringify(probes)], {
    cwd: root,
    maxBuffer: 16 << 20,
  });
  return JSON.parse(stdout) as LintMessage[][];
}
