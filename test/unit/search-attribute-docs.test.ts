import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AGENT_SEARCH_ATTRIBUTES } from '../../src/workflow-contract/search-attributes';

/** The docs that list the agent's search attributes name every one, with its type, and no other. */
const root = path.join(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe("the docs' search attributes", () => {
  it("are the steering guide's table, row for row", () => {
    const text = read('docs/guide/steering.md');
    const section = text.slice(
      text.indexOf('## Search attributes'),
      text.indexOf('\n## ', text.indexOf('## Search attributes') + 1),
    );
    const rows = [...section.matchAll(/^\| `(Agent\w+)` \| (\w+)/gm)].map((match) => [match[1], match[2]]);
    expect(Object.fromEntries(rows)).toEqual(AGENT_SEARCH_ATTRIBUTES);
  });

  it("are the production guide's registration command, name for name", () => {
    const text = read('docs/operations/production.md').replace(/\s+/g, ' ');
    const command = text.slice(
      text.indexOf('temporal operator search-attribute create'),
      text.indexOf('`.', text.indexOf('temporal operator search-attribute create')),
    );
    const pairs = [...command.matchAll(/--name (\w+) --type (\w+)/g)].map((match) => [match[1], match[2]]);
    expect(Object.fromEntries(pairs)).toEqual(AGENT_SEARCH_ATTRIBUTES);
  });
});
