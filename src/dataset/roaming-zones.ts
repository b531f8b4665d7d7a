import { all as allNetworks } from 'mcc-mnc-list';
import { Dataset } from './dataset.schema';

/** ITU-T E.212 geographic zones, by the first digit of the MCC. */
export const ITU_ZONES: Readonly<Record<string, string>> = {
  '2': 'ZONE-EUROPE',
  '3': 'ZONE-NORTH-AMERICA-CARIBBEAN',
  '4': 'ZONE-ASIA-MIDDLE-EAST',
  '5': 'ZONE-OCEANIA-SOUTH-EAST-ASIA',
  '6': 'ZONE-AFRICA',
  '7': 'ZONE-SOUTH-CENTRAL-AMERICA',
};

const ZONE_TEXT: Readonly<Record<string, string>> = {
  '2': 'Europe (MCC 2xx)',
  '3': 'North America and the Caribbean (MCC 3xx)',
  '4': 'Asia and the Middle East (MCC 4xx)',
  '5': 'Oceania and South-East Asia (MCC 5xx)',
  '6': 'Africa (MCC 6xx)',
  '7': 'South and Central America (MCC 7xx)',
};

// eslint-disable-next-line no-control-regex
const clean = (s: string) => s.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();

/**
 * Roaming zones built from real mobile networks (the `mcc-mnc-list` package, Wikipedia's
 * MCC/MNC tables): one zone per ITU geographic zone, a `PLMNID` location info per operational
 * network (value MCC+MNC, e.g. `20801`), two location rates and a default profile per zone.
 * `mccFilter` keeps only networks whose MCC it accepts.
 */
export function roamingZones(
  tenant: string,
  mccFilter: (mcc: string) => boolean = () => true,
): Required<Pick<Dataset, 'locationInfoTypes' | 'locations'>> {
  const byZone = new Map<string, NonNullable<NonNullable<Dataset['locations']>[number]['infos']>>();
  const seen = new Set<string>();
  for (const n of allNetworks()) {
    const zone = ITU_ZONES[n.mcc?.[0] ?? ''];
    const plmn = `${n.mcc}${n.mnc}`;
    const brand = clean(n.brand || n.operator || '');
    if (
      !zone ||
      n.status !== 'Operational' ||
      !/^\d{3}$/.test(n.mcc) ||
      !/^\d{2,3}$/.test(n.mnc) ||
      !brand ||
      seen.has(plmn) ||
      !mccFilter(n.mcc)
    )
      continue;
    seen.add(plmn);
    const infos = byZone.get(zone) ?? [];
    infos.push({
      name: `${plmn} ${brand}`.slice(0, 255),
      description: clean(`${n.operator || brand}, ${n.countryName}`).slice(0, 1024),
      type: 'PLMNID',
      value: plmn,
    });
    byZone.set(zone, infos);
  }
  const locations = Object.entries(ITU_ZONES)
    .filter(([, zone]) => byZone.has(zone))
    .map(([digit, zone], i) => ({
      tenant,
      name: zone,
      description: `Roaming zone: networks of ${ZONE_TEXT[digit]}`,
      rates: [
        { name: `${zone}_TimeBasedRate`, description: null, locationRate: 0 },
        {
          name: `${zone}_VolumeBasedRate`,
          description: 'Charging band for data volume',
          locationRate: i + 1,
        },
      ],
      infos: byZone.get(zone),
      profiles: [{ name: `${zone}-default`, description: null }],
    }));
  return { locationInfoTypes: [{ tenant, name: 'PLMNID', value: 4 }], locations };
}
