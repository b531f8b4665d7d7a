import { registerEnumType } from 'type-graphql';

/**
 * Closed sets of quota sharing as GraphQL enums (docs/graphql.md "Enums"). Each TS enum's values are the
 * strings stored in the database and spoken by the legacy REST bodies, so a row maps onto the
 * graph (and a typed input onto the services) without translation; GraphQL names them in upper
 * case.
 */

/** How a donation's quotas are read (CONTRACT §5 `quotaType` / `shareQuotaType`). */
export enum QuotaType {
  AMOUNT = 'amount',
  SHARE = 'share',
}

registerEnumType(QuotaType, {
  name: 'QuotaType',
  description: 'How the quotas of a donation, group or plan are read.',
  valuesConfig: {
    AMOUNT: {
      description:
        "An absolute amount in the plan's unit: bytes (volume), seconds (time) or minor currency units (credit).",
    },
    SHARE: {
      description:
        "A share of the plan's unitAmount in units of 10^-7 (0-10000000, percent x 100000); grants unitAmount x quota / 10^7, rounded down.",
    },
  },
});

/** What a plan's quota counts (CONTRACT §5 `unitMeteringType`). */
export enum UnitMeteringType {
  VOLUME = 'volume',
  TIME = 'time',
  CREDIT = 'credit',
}

registerEnumType(UnitMeteringType, {
  name: 'UnitMeteringType',
  description: 'The unit a plan quota is counted in.',
  valuesConfig: {
    VOLUME: { description: 'Data volume, in bytes.' },
    TIME: { description: 'Time, in seconds.' },
    CREDIT: { description: 'Credit, in minor currency units (e.g. cents).' },
  },
});
