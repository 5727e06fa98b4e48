import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/** The console's sources: the page, its styles and its React entry. */
const SOURCE_DIR = join(__dirname, '../src/console-ui');

/**
 * Bundles the console (React and every module it imports) into `outDir` as `console.js`, with its page and styles:
 * what `npm run build` ships in the package under `dist/console/`, so nothing is fetched at run time.
 */
export async function buildConsole(outDir: string = join(__dirname, '../dist/console')): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [join(SOURCE_DIR, 'main.tsx')],
    outfile: join(outDir, 'console.js'),
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2022'],
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    logLevel: 'warning',
  });
  for (const file of ['index.html', 'console.css']) copyFileSync(join(SOURCE_DIR, file), join(outDir, file));
}

if (require.main === module) {
  buildConsole().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
