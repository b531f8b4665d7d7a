import Ajv, { ErrorObject } from 'ajv';
import { normalizeMsisdn } from '../lib/msisdn';
import { DatasetError } from './dataset-error';
import { DATASET_SCHEMA, Dataset } from './dataset.schema';
import { checkManifest } from './trusted-documents';

const ajv = new Ajv({ allErrors: false, strict: true });
const validateDataset = ajv.compile(DATASET_SCHEMA);

function jsonPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (extra !== undefined) parts.push(extra);
  return parts.reduce(
    (acc, p) =>
      /^\d+$/.test(p)
        ? `${acc}[${p}]`
        : /^[A-Za-z_$][\w$]*$/.test(p)
          ? `${acc}.${p}`
          : `${acc}[${JSON.stringify(p)}]`,
    '$',
  );
}

function describe(e: ErrorObject): DatasetError {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'required')
    return new DatasetError(jsonPath(e.instancePath, String(params.missingProperty)), 'is required');
  if (e.keyword === 'additionalProperties') {
    return new DatasetError(
      jsonPath(e.instancePath, String(params.additionalProperty)),
      'is not a known field',
    );
  }
  if (e.keyword === 'enum') {
    return new DatasetError(
      jsonPath(e.instancePath),
      `must be one of ${(params.allowedValues as unknown[]).join(', ')}`,
    );
  }
  return new DatasetError(jsonPath(e.instancePath), e.message ?? 'is invalid');
}

/**
 * Validates a dataset document (CONTRACT §9) against the JSON Schema and the rules a schema
 * cannot say (duplicate natural keys, prepaid balances not negative, a trusted document's id
 * that is not the SHA-256 of its body: see checkManifest).
 * @throws DatasetError with the JSON path of the first error.
 */
export function validateDatasetDocument(doc: unknown): Dataset {
  if (!validateDataset(doc)) throw describe(validateDataset.errors![0]);
  const ds = doc as Dataset;
  const seen = new Set<string>();
  const unique = (key: string, path: string): void => {
    if (seen.has(key)) throw new DatasetError(path, 'duplicates an earlier row with the same natural key');
    seen.add(key);
  };
  ds.tenants?.forEach((t, i) => unique(`tenant\0${t.name}`, `$.tenants[${i}].name`));
  ds.clients?.forEach((c, i) => {
    unique(`client\0${c.username}`, `$.clients[${i}].username`);
    if (c.trustedDocuments) checkManifest(c.trustedDocuments, `$.clients[${i}].trustedDocuments`);
  });
  ds.ratings?.forEach((r, i) =>
    unique(
      `rating\0${r.tenant}\0${[r.providerId, r.applicationId, r.serviceId ?? '*', r.originId ?? '*', r.bundleId ?? '*', r.kind].join('\0')}`,
      `$.ratings[${i}]`,
    ),
  );
  ds.planDefinitions?.forEach((d, i) =>
    unique(`planDefinition\0${d.tenant}\0${d.name}`, `$.planDefinitions[${i}].name`),
  );
  ds.subscriberPlans?.forEach((p, i) => unique(`subscriberPlan\0${p.id}`, `$.subscriberPlans[${i}].id`));
  ds.locationInfoTypes?.forEach((t, i) =>
    unique(`infoType\0${t.tenant}\0${t.name}`, `$.locationInfoTypes[${i}].name`),
  );
  ds.locations?.forEach((l, i) => {
    unique(`location\0${l.tenant}\0${l.name}`, `$.locations[${i}].name`);
    l.infos?.forEach((x, j) => unique(`info\0${l.tenant}\0${x.name}`, `$.locations[${i}].infos[${j}].name`));
    for (const kind of ['rates', 'profiles'] as const) {
      l[kind]?.forEach((x, j) =>
        unique(`${kind}\0${l.tenant}\0${l.name}\0${x.name}`, `$.locations[${i}].${kind}[${j}].name`),
      );
    }
  });
  ds.subscribers?.forEach((s, i) => {
    unique(`subscriber\0${s.tenant}\0${normalizeMsisdn(s.msisdn)}`, `$.subscribers[${i}].msisdn`);
    if (s.paymentType === 'prepaid' && s.balance?.startsWith('-')) {
      throw new DatasetError(`$.subscribers[${i}].balance`, 'a prepaid balance cannot be negative');
    }
  });
  return ds;
}
