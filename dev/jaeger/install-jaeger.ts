import { resolveJaeger } from './jaeger';

/** `npm run jaeger:install`: finds or builds Jaeger (for the tracing test and local trace viewing) and prints where it is. */
resolveJaeger((line) => console.log(line)).then(
  (binary) => console.log(`Jaeger: ${binary}`),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
