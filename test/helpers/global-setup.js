/**
 * Jest global setup: builds `dist/` once before any test file runs, for the tests that start
 * the gateway or the CLI as an operator does (`node dist/src/main.js`, `node dist/src/cli/bin.js`).
 */
const { execFileSync } = require('node:child_process');
const path = require('node:path');

module.exports = async () => {
  execFileSync('npm', ['run', '-s', 'build'], { cwd: path.join(__dirname, '../..'), stdio: 'inherit' });
};
