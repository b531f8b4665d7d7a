import { MSISDN_RULE } from '../../src/lib/msisdn';
import { DONOR, useSharingApp } from '../helpers/sharing';

/**
 * The legacy answers the REST rows now give at the edge because the graph's arguments are typed
 * (docs/graphql.md): `GET /sqs/api/recurringDonations` refuses a malformed `donorId` with the legacy
 * 412 before running the operation (the MSISDN scalar would refuse it by coercion), in the
 * order the service checked: `page` first, then `donorId`; neither filter is still the
 * service's 412 on `donorId`, before `page`'s range.
 */
describe('recurring donations over REST: legacy 412s answered at the edge', () => {
  const t = useSharingApp();
  const get = (query: string) => t.sqs.call('GET', `/sqs/api/recurringDonations?${query}`);
  const refused = (field: string, description: string) => ({ errors: [{ field, description }] });

  it('a malformed donorId is 412 on donorId; a page out of range is named first; no filter is 412 on donorId', async () => {
    for (const bad of ['abc', '12ab', '+1234', '1'.repeat(16)]) {
      const res = await get(`donorId=${encodeURIComponent(bad)}`);
      expect([res.status, res.json()]).toEqual([412, refused('donorId', MSISDN_RULE)]);
    }
    const both = await get('donorId=abc&page=2000000');
    expect([both.status, both.json()]).toEqual([412, refused('page', 'must be an integer from 0')]);
    const neither = await get('page=2000000');
    expect([neither.status, neither.json()]).toEqual([412, refused('donorId', 'give donorId or groupId')]);
    const ok = await get(`donorId=%2B${DONOR}`);
    expect(ok.status).toBe(200);
  });
});
