/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  // Integration tests run workflows on a real server; two cores, so two files at a time.
  maxWorkers: 2,
  testTimeout: 60_000,
  // Worker shutdown in afterAll can outlive a test's own timeout under load.
  openHandlesTimeout: 5_000,
};
