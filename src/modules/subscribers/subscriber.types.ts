import { registerEnumType } from 'type-graphql';

/**
 * The closed sets of a subscriber account as GraphQL enums (CONTRACT §9; docs/graphql.md "Enums"). The values
 * are the stored strings, so a store row maps to the enum by a cast; GraphQL names are upper case.
 */

/** A subscriber's status (`subscribers.status`). */
export enum SubscriberStatusValue {
  ACTIVE = 'active',
  INACTIVE = 'inactive',
  SUSPENDED = 'suspended',
}

registerEnumType(SubscriberStatusValue, {
  name: 'SubscriberStatus',
  description: 'Whether a subscriber account can be charged.',
  valuesConfig: {
    ACTIVE: { description: 'Can be rated and charged.' },
    INACTIVE: { description: 'Not in service: ratings answer INVALID_NUMBER (2000).' },
    SUSPENDED: { description: 'Barred for now: ratings answer INVALID_NUMBER (2000).' },
  },
});

/** A subscriber's payment type (`subscribers.payment_type`). */
export enum PaymentTypeValue {
  PREPAID = 'prepaid',
  POSTPAID = 'postpaid',
}

registerEnumType(PaymentTypeValue, {
  name: 'PaymentType',
  description: 'How a subscriber pays.',
  valuesConfig: {
    PREPAID: {
      description:
        'Pays in advance: a charge the balance does not cover is refused (INSUFFICIENT_FUNDS, 1000); the balance never goes below zero.',
    },
    POSTPAID: { description: 'Billed later: charges accumulate and the balance goes negative.' },
  },
});
