/**
 * Jest for the cluster suite only (test/cluster/, issue 14): run by `npm run test:cluster`
 * (scripts/cluster-test.sh starts the Galera cluster first). The default config ignores it.
 */
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  roots: ['<rootDir>/test/cluster'],
  testPathIgnorePatterns: ['/node_modules/'],
  globalSetup: undefined,
  testTimeout: 120000,
};
