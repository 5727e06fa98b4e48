// @ts-check
const path = require('node:path');

/**
 * `local/folder-imports`: a file under `root` (src/) may import from its own folder and from the folders `allowed`
 * names for it, and from nothing else of the repository (not dev/, test/ or scripts/), so folders depend one way.
 * @type {import('eslint').Rule.RuleModule}
 */
module.exports = {
  meta: {
    type: 'problem',
    docs: { description: 'Each folder under src/ imports only the folders the layers table allows.' },
    schema: [
      {
        type: 'object',
        properties: { root: { type: 'string' }, allowed: { type: 'object' } },
        required: ['root', 'allowed'],
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const { root, allowed } = /** @type {{ root: string; allowed: Record<string, string[]> }} */ (context.options[0]);
    const file = context.filename;
    const within = path.relative(root, file);
    if (within.startsWith('..') || path.isAbsolute(within) || !within.includes(path.sep)) return {};
    const from = within.split(path.sep)[0];

    /** @param {import('estree').Node} node @param {unknown} source */
    function check(node, source) {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.relative(root, path.resolve(path.dirname(file), source));
      if (target.startsWith('..')) {
        context.report({ node, message: `src/ is the package: it imports nothing outside src/ ("${source}").` });
        return;
      }
      const to = target.split(path.sep)[0];
      if (to === from) return;
      const mayImport = allowed[from];
      if (mayImport === undefined) {
        context.report({ node, message: `src/${from}/ has no row in eslint.config.js's folder layers: add one.` });
      } else if (!mayImport.includes(to)) {
        context.report({
          node,
          message: `src/${from}/ may not import src/${to}/ (eslint.config.js's folder layers allow ${mayImport.join(', ') || 'no other folder'}): move the shared piece lower, or pass it in.`,
        });
      }
    }

    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
      CallExpression: (node) => {
        const [first] = node.arguments;
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && first?.type === 'Literal')
          check(node, first.value);
      },
    };
  },
};
