/** Jest: TypeScript through swc (legacy decorators + metadata for type-graphql). */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The Galera cluster suite needs scripts/galera-cluster.sh: `npm run test:cluster` (jest.cluster.config.js).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/cluster/'],
  setupFiles: ['<rootDir>/test/helpers/setup.ts'],
  globalSetup: '<rootDir>/test/helpers/global-setup.js',
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
};
