import { Knex } from 'knex';

/**
 * Real database faults (no mocks): a trigger that makes a table's writes (the balance, for the
 * charging failure codes) fail or run slowly, or a table moved out of the way. Each undoes itself.
 */
export function withFailingBalanceWrites<T>(
  db: Knex,
  dialect: 'sqlite' | 'mysql',
  fn: () => Promise<T>,
): Promise<T> {
  return withFailingWrites(db, dialect, 'subscribers', fn);
}

/** Makes every UPDATE of `table` fail ('store offline') for the duration of `fn`. */
export async function withFailingWrites<T>(
  db: Knex,
  dialect: 'sqlite' | 'mysql',
  table: string,
  fn: () => Promise<T>,
): Promise<T> {
  await db.raw(
    dialect === 'mysql'
      ? `CREATE TRIGGER fault_fail BEFORE UPDATE ON ${table} FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'store offline'`
      : `CREATE TRIGGER fault_fail BEFORE UPDATE ON ${table} BEGIN SELECT RAISE(ABORT, 'store offline'); END`,
  );
  try {
    return await fn();
  } finally {
    await db.raw('DROP TRIGGER fault_fail');
  }
}

/** Makes every balance write take ~100 ms or more. */
export async function withSlowBalanceWrites<T>(
  db: Knex,
  dialect: 'sqlite' | 'mysql',
  fn: () => Promise<T>,
): Promise<T> {
  if (dialect === 'mysql') {
    await db.raw(
      'CREATE TRIGGER fault_slow BEFORE UPDATE ON subscribers FOR EACH ROW SET @fault_slept = SLEEP(0.3)',
    );
  } else {
    await db.raw('CREATE TABLE fault_rows (x INTEGER)');
    await db.raw(
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000) INSERT INTO fault_rows SELECT x FROM c',
    );
    await db.raw(
      'CREATE TRIGGER fault_slow BEFORE UPDATE ON subscribers BEGIN SELECT count(*) FROM fault_rows a, fault_rows b; END',
    );
  }
  try {
    return await fn();
  } finally {
    await db.raw('DROP TRIGGER fault_slow');
    if (dialect === 'sqlite') await db.raw('DROP TABLE fault_rows');
  }
}

/** Renames a table for the duration of `fn`. */
export async function withTableMissing<T>(db: Knex, table: string, fn: () => Promise<T>): Promise<T> {
  await db.schema.renameTable(table, `${table}_offline`);
  try {
    return await fn();
  } finally {
    await db.schema.renameTable(`${table}_offline`, table);
  }
}
