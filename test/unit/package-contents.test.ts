import { checkContents } from '../../scripts/package-contents';

/** What `npm run package:check` accepts in the tarball: the files a user needs, and none of the repository's tooling. */
const exportsMap = { '.': { types: './dist/client/index.d.ts', default: './dist/client/index.js' } };
const needed = [
  'LICENSE',
  'README.md',
  'package.json',
  'CHANGELOG.md',
  'bin/agent-runner.js',
  'dist/cli/index.js',
  'dist/console/index.html',
  'dist/console/console.js',
  'dist/console/console.css',
  'dist/client/index.js',
  'dist/client/index.d.ts',
];

describe('the tarball check', () => {
  it('accepts the files a user needs', () => {
    expect(() => checkContents(needed, exportsMap)).not.toThrow();
  });

  it.each([
    ['dev/stack/cli.ts'],
    ['dist/stack/stack.js'],
    ['dist/llama/llama-cpp.js'],
    ['dist/llama/serve.py'],
    ['dist/go-tools/jaeger.js'],
    ['dist/llama/chatml-tools.jinja'],
  ])('refuses the dev tooling %s', (file) => {
    expect(() => checkContents([...needed, file], exportsMap)).toThrow(`ships the repository's dev tooling: ${file}`);
  });
});
