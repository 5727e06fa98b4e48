#!/usr/bin/env node
'use strict';

/**
 * The `agent-runner` command. An installed package runs the built CLI, `dist/cli/index.js` (`npm pack` builds it).
 * A checkout of the repository, where `src/cli/index.ts` sits beside this file (the package ships no `src/`), runs
 * the TypeScript as it is through tsx, a development dependency, so there is no build step between an edit and the
 * command, and never a stale `dist/` from an earlier build.
 */
const { existsSync } = require('node:fs');
const path = require('node:path');

const source = path.join(__dirname, '..', 'src', 'cli', 'index.ts');
if (existsSync(source)) {
  require('tsx/cjs/api').register();
  require(source);
} else {
  // commander is an optional peer dependency: a library user who never runs the command does not install it.
  try {
    require.resolve('commander');
  } catch {
    process.stderr.write(
      'agent-runner: the command needs commander, an optional peer dependency of the package: npm install commander\n',
    );
    process.exit(1);
  }
  require('../dist/cli/index.js');
}
