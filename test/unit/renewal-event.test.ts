import { RenewalRejectedError, decodeRenewalEvent } from '../../src/modules/events/renewal-events';

/** The documented renewal payload, validated with zod; anything else is rejected with a reason. */
describe('decodeRenewalEvent', () => {
  const decode = (body: unknown) =>
    decodeRenewalEvent(Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)));
  const valid = {
    eventId: 'bill-2026:11.23_0001',
    tenant: 'acme',
    subscriberPlanId: 458,
    renewedAt: 1_795_392_000,
  };

  it('accepts the documented payload, a string plan id, and ignores unknown fields', () => {
    expect(decode(valid)).toEqual(valid);
    expect(decode({ ...valid, subscriberPlanId: '458', extra: true })).toEqual(valid);
  });

  it.each([
    ['not JSON', '{', /^malformed JSON: /],
    ['an array', '[]', /^invalid payload: \(body\): /],
    ['no eventId', { ...valid, eventId: undefined }, /^invalid payload: eventId: /],
    ['an eventId with a space', { ...valid, eventId: 'a b' }, /^invalid payload: eventId: must be 1-128/],
    ['an eventId of 129 characters', { ...valid, eventId: 'x'.repeat(129) }, /^invalid payload: eventId: /],
    ['an empty tenant', { ...valid, tenant: '' }, /^invalid payload: tenant: /],
    ['plan id 0', { ...valid, subscriberPlanId: 0 }, /^invalid payload: subscriberPlanId: /],
    ['plan id 1.5', { ...valid, subscriberPlanId: 1.5 }, /^invalid payload: subscriberPlanId: /],
    ['plan id "01"', { ...valid, subscriberPlanId: '01' }, /^invalid payload: subscriberPlanId: /],
    [
      'renewedAt as ISO text',
      { ...valid, renewedAt: '2026-11-23T00:00:00Z' },
      /^invalid payload: renewedAt: /,
    ],
    ['renewedAt negative', { ...valid, renewedAt: -1 }, /^invalid payload: renewedAt: /],
  ])('rejects %s', (_name, body, reason) => {
    expect(() => decode(body)).toThrow(RenewalRejectedError);
    expect(() => decode(body)).toThrow(reason);
  });
});
