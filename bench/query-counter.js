/*
 * Preloaded into a benchmarked server (`node -r bench/query-counter.js …`, see
 * harness.startServer's countQueries): counts every SQL statement knex sends (transaction
 * statements included) and, on SIGUSR2, writes the count to BENCH_QUERY_COUNT_FILE. Changes
 * nothing else in the server.
 */
'use strict';
const fs = require('node:fs');
const Client = require('knex/lib/client');

let statements = 0;
const query = Client.prototype.query;
Client.prototype.query = function countedQuery(...args) {
  statements++;
  return query.apply(this, args);
};

process.on('SIGUSR2', () => {
  const file = process.env.BENCH_QUERY_COUNT_FILE;
  if (file) fs.writeFileSync(file, String(statements));
});
