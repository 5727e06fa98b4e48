import path from 'node:path';

/**
 * The suite runs on the Node the project brings (the `node` devDependency, first on `npm test`'s PATH), not on the
 * machine's own: global setup prints which one, and this fails if an older one ran.
 */
describe('the runtime the tests run on', () => {
  it('is Node 24 from the project', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(major).toBeGreaterThanOrEqual(24);
    expect(process.execPath.split(path.sep)).toContain('node_modules');
  });
});
