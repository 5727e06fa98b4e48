import { resolveTemporalBinaries } from './binaries';
import { readStackVersions } from './versions';

/** `npm run stack:install`: builds (once) or finds the stack's Temporal server, SQL tool and web UI. */
async function main(): Promise<void> {
  const versions = await readStackVersions();
  const binaries = await resolveTemporalBinaries(versions, (line) => console.log(line));
  console.log(`Temporal server ${versions.temporal}: ${binaries.server}`);
  console.log(`Temporal SQL tool: ${binaries.sqlTool} (schema ${binaries.schema})`);
  console.log(`Temporal web UI ${versions.ui}: ${binaries.ui}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
