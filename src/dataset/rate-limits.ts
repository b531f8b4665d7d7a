import { Knex } from 'knex';
import { setRateLimit } from '../auth/client.store';
import { Dataset } from './dataset.schema';

/**
 * Stores the rate limits of a validated dataset (docs/operations.md "Rate limits"): each tenant's
 * `rateLimit` (the default of its clients without one of their own) and each client's, by name.
 * Absent leaves the stored limit as it is; null removes it. Runs after the tenants and clients
 * were upserted, in the import's transaction `trx`.
 * @returns how many tenant and client limits changed.
 */
export async function importRateLimits(trx: Knex, ds: Dataset): Promise<number> {
  let changed = 0;
  for (const t of ds.tenants ?? [])
    if (t.rateLimit !== undefined && (await setRateLimit(trx, { tenant: t.name }, t.rateLimit))) changed++;
  for (const c of ds.clients ?? [])
    if (c.rateLimit !== undefined && (await setRateLimit(trx, { username: c.username }, c.rateLimit)))
      changed++;
  return changed;
}
