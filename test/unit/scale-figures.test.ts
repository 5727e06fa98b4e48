import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { addFigures, historyFigures } from '../../bench/scale/history-figures';
import { machineCpuSeconds, parseStat, rssBytes, treeCpuSeconds } from '../../bench/scale/proc-stat';

// The scale bench's counting (`npm run scale`, docs/operations/scale.md): what the projection's per-run figures
// and CPU seconds rest on. The bench itself starts a stack and runs thousands of runs: not part of the tests.

describe('the scale bench counts a history', () => {
  it('finds the activities, local activities, upserts and the Temporal Cloud actions of the recorded agent loop', async () => {
    const file = path.join(__dirname, '..', 'replay', 'histories', 'agent-loop.json');
    const history = historyFromJSON(JSON.parse(await readFile(file, 'utf8')));
    const figures = historyFigures(history.events ?? []);
    expect(figures.events).toBe(29);
    expect(figures.activities).toEqual({ callModel: 3 });
    expect(figures.activityAttempts).toBe(3);
    // Four local activities recorded by three workflow tasks: Temporal Cloud bills one action per task.
    expect(figures.localActivities).toBe(4);
    expect(figures.localActivityTasks).toBe(3);
    expect(figures.searchAttributeUpserts).toBe(2);
    expect(figures.workflowTasks).toBe(4);
    expect(figures.timers).toBe(0);
    // The start, three activity attempts, three workflow tasks with local activities, two upserts.
    expect(figures.cloudActions).toBe(1 + 3 + 3 + 2);
    const twice = addFigures([figures, figures]);
    expect(twice.cloudActions).toBe(18);
    expect(twice.activities).toEqual({ callModel: 6 });
  });
});

describe('the scale bench reads /proc', () => {
  it('parses a stat line whose command name holds spaces and parentheses', () => {
    const fields = ['S', '41', ...Array.from({ length: 9 }, () => '0'), '250', '50', '100', '30'];
    const stat = parseStat(`4242 (postgres: a (b) c) ${fields.join(' ')} 0 0`);
    expect(stat).toEqual({ pid: 4242, parentPid: 41, ownSeconds: 3, reapedChildrenSeconds: 1.3 });
  });

  it('reads this process: CPU seconds that grow with work, its resident memory, the machine busy time', () => {
    const before = treeCpuSeconds(process.pid);
    const until = Date.now() + 300;
    let spin = 0;
    while (Date.now() < until) spin += 1;
    expect(spin).toBeGreaterThan(0);
    expect(treeCpuSeconds(process.pid)).toBeGreaterThan(before);
    expect(rssBytes(process.pid)).toBeGreaterThan(10 * 2 ** 20);
    const machine = machineCpuSeconds();
    expect(machine.busy).toBeGreaterThan(0);
    expect(machine.total).toBeGreaterThan(machine.busy);
  });
});
