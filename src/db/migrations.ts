import { Knex } from 'knex';
import * as foundation from '../../migrations/20261122000100_foundation';
import * as locations from '../../migrations/20261122000200_locations';
import * as charging from '../../migrations/20261122000300_charging';
import * as sharing from '../../migrations/20261122000400_sharing';
import * as idempotency from '../../migrations/20261122000500_idempotency';
import * as galeraRowVersion from '../../migrations/20261123000100_galera_row_version';
import * as loginFailures from '../../migrations/20261123000100_login_failures';
import * as outbox from '../../migrations/20261124000100_outbox';
import * as periodRecipients from '../../migrations/20261124000200_period_recipients';
import * as renewalEvents from '../../migrations/20261124000300_renewal_events';
import * as cdrs from '../../migrations/20261124000400_cdrs';
import * as demoPasswordCheck from '../../migrations/20261124000500_demo_password_check';
import * as donationKeyset from '../../migrations/20261126000100_donation_keyset';
import * as portal from '../../migrations/20261126000200_portal';
import * as dataVersions from '../../migrations/20261126000300_data_versions';
import * as rateLimits from '../../migrations/20261126000310_rate_limits';
import * as outboxTraceparent from '../../migrations/20261126001000_outbox_traceparent';
import * as trustedDocuments from '../../migrations/20261126002100_trusted_documents';

/**
 * The ordered migration list. Migrations are TypeScript modules under `migrations/`; listing
 * them here lets the same code run from sources (tests) and from the compiled build, with no
 * file-extension rules to keep in step.
 */
const MIGRATIONS: ReadonlyArray<[string, Knex.Migration]> = [
  ['20261122000100_foundation', foundation],
  ['20261122000200_locations', locations],
  ['20261122000300_charging', charging],
  ['20261122000400_sharing', sharing],
  ['20261122000500_idempotency', idempotency],
  ['20261123000100_galera_row_version', galeraRowVersion],
  ['20261123000100_login_failures', loginFailures],
  ['20261124000100_outbox', outbox],
  ['20261124000200_period_recipients', periodRecipients],
  ['20261124000300_renewal_events', renewalEvents],
  ['20261124000400_cdrs', cdrs],
  ['20261124000500_demo_password_check', demoPasswordCheck],
  ['20261126000100_donation_keyset', donationKeyset],
  ['20261126000200_portal', portal],
  ['20261126000300_data_versions', dataVersions],
  ['20261126000310_rate_limits', rateLimits],
  ['20261126001000_outbox_traceparent', outboxTraceparent],
  ['20261126002100_trusted_documents', trustedDocuments],
];

/** knex migration source over {@link MIGRATIONS}. */
export const migrationSource: Knex.MigrationSource<[string, Knex.Migration]> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: (m) => m[0],
  getMigration: async (m) => m[1],
};

/** Brings the schema to the latest migration; returns the names applied now. */
export async function migrateLatest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

/** Rolls every migration back (tests). */
export async function migrateRollbackAll(db: Knex): Promise<void> {
  await db.migrate.rollback({ migrationSource }, true);
}
