import { groupCommitSize } from '../../src/metrics';

/**
 * Write transactions and COMMITs counted so far by the process-wide histogram
 * `db_group_commit_transactions` (SQLite group commit, src/db/group-commit.ts): the histogram's
 * sum and count. Tests compare two readings.
 */
export async function groupCommitCounts(): Promise<{ transactions: number; commits: number }> {
  const values = (await groupCommitSize.get()).values;
  const of = (name: string) => values.find((v) => v.metricName === name)?.value ?? 0;
  return {
    transactions: of('db_group_commit_transactions_sum'),
    commits: of('db_group_commit_transactions_count'),
  };
}

/**
 * `it` where the tests run on SQLite (where the group commit is), `it.skip` when
 * TEST_DATABASE_URL names MySQL/MariaDB.
 */
export const itOnSqlite: jest.It = process.env.TEST_DATABASE_URL?.startsWith('mysql') ? it.skip : it;
