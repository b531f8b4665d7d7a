/*
 * Preloaded into a benchmarked server (`node -r bench/query-counter.js …`, see
 * harness.startServer's countQueries): counts every SQL statement the database drivers run
 * (transaction statements and prepared statements included) and, on SIGUSR2, writes the count
 * to BENCH_QUERY_COUNT_FILE. Changes nothing else in the server.
 *
 * It counts at the drivers, better-sqlite3 and mysql2, which the esbuild bundle the gateway runs
 * from (dist/gateway.js) leaves external: knex is inside the bundle, so a counter patching
 * node_modules' knex would see nothing.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

let statements = 0;
const counted = (proto, names) => {
  for (const name of names) {
    const original = proto[name];
    proto[name] = function countedStatement(...args) {
      statements++;
      return original.apply(this, args);
    };
  }
};

// better-sqlite3: every statement runs through a Statement's all/get/run/iterate, or exec.
const Database = require('better-sqlite3');
const probe = new Database(':memory:');
counted(Object.getPrototypeOf(probe.prepare('select 1')), ['all', 'get', 'run', 'iterate']);
counted(Database.prototype, ['exec']);
probe.close();
// mysql2: knex sends through query, prepared statements through execute.
// (by file: the package's exports map does not list it; the same file mysql2 loads itself).
const mysql2 = path.dirname(require.resolve('mysql2'));
counted(require(path.join(mysql2, 'lib', 'base', 'connection.js')).prototype, ['query', 'execute']);

process.on('SIGUSR2', () => {
  const file = process.env.BENCH_QUERY_COUNT_FILE;
  if (file) fs.writeFileSync(file, String(statements));
});
