/**
 * The repository's own tooling, which a user's install never runs: dev/ (Temporal on PostgreSQL, llama.cpp,
 * Jaeger), what it would be compiled to under dist/, and its Python and template files.
 */
const DEV_TOOLING = /^dev\/|^dist\/(stack|llama|jaeger|go-tools)\/|\.(py|jinja)$/;

/** What the tarball must hold and must not. */
export function checkContents(
  files: readonly string[],
  exportsMap: Record<string, string | Record<string, string>>,
): void {
  const problems: string[] = [];
  const forbidden = files.filter(
    (file) =>
      /(^|\/)(test|tests|bench|fixtures|__tests__)\//.test(file) ||
      /\.test\.[jt]s$/.test(file) ||
      file.startsWith('src/'),
  );
  if (forbidden.length > 0) problems.push(`ships what a user does not need: ${forbidden.slice(0, 10).join(', ')}`);
  const tooling = files.filter((file) => DEV_TOOLING.test(file));
  if (tooling.length > 0) problems.push(`ships the repository's dev tooling: ${tooling.slice(0, 10).join(', ')}`);
  for (const required of [
    'LICENSE',
    'README.md',
    'package.json',
    'CHANGELOG.md',
    'bin/agent-runner.js',
    'dist/cli/index.js',
    // The console's page, bundled at build time: the API serves it with nothing downloaded at run time.
    'dist/console/index.html',
    'dist/console/console.js',
    'dist/console/console.css',
  ]) {
    if (!files.includes(required)) problems.push(`lacks ${required}`);
  }
  for (const [entry, conditions] of Object.entries(exportsMap)) {
    if (typeof conditions === 'string') continue;
    for (const [condition, target] of Object.entries(conditions)) {
      if (!files.includes(target.replace(/^\.\//, '')))
        problems.push(`exports["${entry}"].${condition} names ${target}, which it does not ship`);
    }
    if (conditions.types === undefined) problems.push(`exports["${entry}"] has no types condition`);
  }
  if (problems.length > 0) throw new Error(`The tarball:\n- ${problems.join('\n- ')}`);
}
