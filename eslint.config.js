// @ts-check
const { builtinModules } = require('node:module');
const path = require('node:path');
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const folderImports = require('./lint/folder-imports');

/** Node built-ins, bare and `node:`-prefixed: none may be imported by deterministic workflow code. */
const nodeBuiltins = builtinModules.flatMap((name) => [name, `node:${name}`, `${name}/*`, `node:${name}/*`]);

/** The run record's fields changed only in src/workflows/agent/run-transitions.ts: its status, and those several steps share. */
const sharedRunFields =
  '/^(status|terminationReason|error|pendingApprovals|pendingQuestion|messages|inputMessageCount|turn|usage|inbox|externalStopRequested|stopRequest|limits)$/';

/**
 * The folders of src/, lowest first, each with the folders it may import: dependencies go one way, down this list
 * (docs/development.md#layout-of-src explains each row). A new folder needs a row; a cycle fails test/unit.
 */
const folderLayers = {
  shared: [],
  os: [],
  'workflow-contract': ['shared'],
  redaction: ['shared'],
  codec: ['shared'],
  config: ['shared', 'redaction', 'codec'],
  workflows: ['shared', 'workflow-contract'],
  tracing: ['shared', 'redaction', 'config'],
  temporal: ['shared', 'os', 'workflow-contract', 'config'],
  'dev-server': ['shared', 'os', 'workflow-contract', 'config', 'temporal'],
  tools: ['shared'],
  activities: ['shared', 'workflow-contract', 'redaction', 'config', 'tracing', 'tools'],
  mcp: ['shared', 'workflow-contract', 'config', 'temporal', 'tools'],
  'scripted-model': ['shared', 'config'],
  client: ['shared', 'workflow-contract', 'codec', 'config', 'tracing', 'temporal', 'workflows'],
  http: ['shared', 'codec', 'config', 'temporal'],
  'codec-server': ['shared', 'codec', 'config', 'http'],
  worker: [
    'shared',
    'workflow-contract',
    'redaction',
    'codec',
    'config',
    'tracing',
    'temporal',
    'tools',
    'activities',
    'mcp',
    'scripted-model',
  ],
  api: ['shared', 'workflow-contract', 'redaction', 'config', 'tracing', 'temporal', 'client', 'http', 'codec-server'],
  cli: ['shared', 'codec', 'config', 'tracing', 'temporal', 'client', 'codec-server', 'api'],
  testing: ['temporal', 'dev-server', 'scripted-model', 'worker'],
  processes: [
    'shared',
    'redaction',
    'config',
    'tracing',
    'temporal',
    'dev-server',
    'tools',
    'scripted-model',
    'client',
    'worker',
    'api',
    'cli',
  ],
  'console-ui': ['shared'],
};

module.exports = tseslint.config(
  // docs/snippets are a user's code, typechecked against the packed package in a fresh app (npm run package:check).
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'workspace/**', '.temporal/**', 'docs/snippets/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: __dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox; shared code and the workflow contract are imported by it.
    files: ['src/workflows/**/*.ts', 'src/shared/**/*.ts', 'src/workflow-contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins
            .filter((name) => !name.endsWith('/*'))
            .map((name) => ({
              name,
              message: 'Workflow code must be deterministic: do I/O in an activity.',
            })),
          patterns: [
            {
              group: ['@temporalio/activity', '@temporalio/worker', '@temporalio/client', 'openai'],
              message: 'Not in workflow code: only @temporalio/workflow, relative imports and pure libraries.',
            },
          ],
        },
      ],
      'no-console': 'error',
      'no-restricted-globals': ['error', { name: 'process', message: 'No process state in workflow code.' }],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Use the workflow clock through @temporalio/workflow helpers.' },
        { object: 'Math', property: 'random', message: 'Use wf.uuid4() or pass randomness in through an activity.' },
      ],
    },
  },
  {
    // Rules are pure functions of plain data, unit-tested without Temporal: nothing durable may come in,
    // neither Temporal itself nor the agent's steps and state, which do. (Listed again: a later block's
    // no-restricted-imports replaces the one above for these files.)
    files: ['src/workflows/rules/**/*.ts', 'src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins
            .filter((name) => !name.endsWith('/*'))
            .map((name) => ({
              name,
              message: 'Workflow code must be deterministic: do I/O in an activity.',
            })),
          patterns: [
            {
              group: ['@temporalio/*', 'openai'],
              message: 'Rules are pure: no Temporal here. Apply the rule in a step under src/workflows/agent/.',
            },
            {
              group: ['../agent', '../agent/*', '../conversation', '../conversation/*'],
              message: 'Rules are pure: they take plain data, not the run or its steps.',
            },
            {
              group: ['../workflow-contract/*', '../../workflow-contract/*'],
              message: 'Pure code: src/workflow-contract/ holds the Temporal-dependent definitions.',
            },
          ],
        },
      ],
    },
  },
  {
    // Folders depend one way: each imports only the folders below it in folderLayers, and src/ nothing outside it.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { local: { rules: { 'folder-imports': folderImports } } },
    rules: { 'local/folder-imports': ['error', { root: path.join(__dirname, 'src'), allowed: folderLayers }] },
  },
  {
    // A run's status and the fields several steps share change only through the named transitions, so a reader
    // finds every way one of them changes in src/workflows/agent/run-transitions.ts.
    files: ['src/**/*.ts'],
    ignores: ['src/workflows/agent/run-transitions.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `AssignmentExpression[left.object.name='run'][left.property.name=${sharedRunFields}]`,
          message: 'Change this field of the run through a transition in src/workflows/agent/run-transitions.ts.',
        },
        {
          selector: `AssignmentExpression[left.object.object.name='run'][left.object.property.name=${sharedRunFields}]`,
          message: 'Change this field of the run through a transition in src/workflows/agent/run-transitions.ts.',
        },
        {
          selector: `UpdateExpression[argument.object.name='run'][argument.property.name=${sharedRunFields}], UpdateExpression[argument.object.object.name='run'][argument.object.property.name=${sharedRunFields}]`,
          message: 'Change this field of the run through a transition in src/workflows/agent/run-transitions.ts.',
        },
        {
          selector: `UnaryExpression[operator='delete'][argument.object.name='run'][argument.property.name=${sharedRunFields}], UnaryExpression[operator='delete'][argument.object.object.name='run'][argument.object.property.name=${sharedRunFields}]`,
          message: 'Change this field of the run through a transition in src/workflows/agent/run-transitions.ts.',
        },
        {
          selector: `CallExpression[callee.object.object.name='run'][callee.object.property.name=${sharedRunFields}][callee.property.name=/^(push|splice|unshift|pop|shift|sort|reverse|fill|copyWithin)$/]`,
          message: 'Change this field of the run through a transition in src/workflows/agent/run-transitions.ts.',
        },
      ],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: {
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
