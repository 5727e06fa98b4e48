import { resolveTemporalCli } from './temporal-cli';

/** `npm run temporal:install`: finds or builds the Temporal CLI and prints where it is. */
resolveTemporalCli((line) => console.log(line)).then(
  (cli) => {
    if (cli === undefined) {
      console.log(
        'No Temporal CLI on PATH and no Go toolchain: the SDK will download the CLI when a server is started.',
      );
    } else {
      console.log(`Temporal CLI: ${cli.path} (found via ${cli.source})`);
    }
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
