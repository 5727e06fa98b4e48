#!/usr/bin/env node
'use strict';

/**
 * The `agent-runner` command. The tool is TypeScript run as it is, through
 * tsx (a dependency), so there is no build step between an edit and the
 * command: register tsx's CommonJS hook, then load the entry point.
 */
require('tsx/cjs/api').register();
require('../src/cli/index.ts');
