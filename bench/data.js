/*
 * The benchmark's data (generated, never committed): one tenant and API client, a rating
 * catalogue entry, a donation plan definition, 100,000 prepaid subscribers, N tokens (1,000,000,
 * or 10,000 for the token-scale comparison) and 10,000 PCRF locations with 2 rates, 1 info and
 * 1 profile each. The small rows go through the project's dataset import; the bulk rows are
 * multi-row INSERTs in one transaction. SQLite: generated once into bench/.data/ (gitignored)
 * under a key of the generator version, the sizes and the migrations, and copied per run.
 * MariaDB: generated into a dedicated database (sg_bench, sg_bench_10k) tagged with that key,
 * reused while the key matches, dropped and regenerated otherwise.
 * dist/ is loaded lazily: bench/requests.js (the load process) only needs msisdnOf.
 */
'use strict';
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { URL } = require('node:url');

/** Bump when the generated data changes shape: cached SQLite files and MariaDB tags go stale. */
const GENERATOR_VERSION = 2;
/** Default sizes; infosPerLocation 10 serves bench/graphql-limits.js. */
const SIZES = { subscribers: 100_000, tokens: 1_000_000, locations: 10_000, infosPerLocation: 1 };
const TENANT = 'bench';
const CLIENT = { username: 'bench', password: 'bench-password-not-a-demo' };
/**
 * A second API client of the tenant with the same grants and a per-client rate limit it never
 * reaches (docs/operations.md "Rate limits": 1,000,000 requests per second, the dataset's
 * maximum): the `overheads` scenario measures what counting costs.
 */
const LIMITED_CLIENT = { username: 'bench-limited', password: 'bench-password-not-a-demo' };
const NEVER_REACHED_RATE_LIMIT = { requestsPerSecond: 1_000_000, burst: 1_000_000 };
/**
 * The GraphQL document of every introspection over /graphql: sent whole by the ordinary variant
 * and, as the bench client's only trusted (persisted) document, by its sha256 by the trusted one.
 */
const INTROSPECT_QUERY =
  'query IntrospectToken($token: String!) { introspectToken(token: $token) { active clientId expiry } }';
/** sha256 (hex) of {@link INTROSPECT_QUERY}: the manifest id and the APQ `sha256Hash`. */
const INTROSPECT_QUERY_SHA256 = createHash('sha256').update(INTROSPECT_QUERY, 'utf8').digest('hex');
const PERMISSIONS = [
  'TOKEN_ISSUE',
  'TOKEN_INTROSPECT',
  'CRS_RATING',
  'SQS_DONATION_PERMISSION',
  'PCRF_LOCATION_READ_PERMISSION',
];
/** Every token expires 2100-01-01 (epoch seconds). */
const TOKEN_EXPIRY = 4_102_444_800;
/** Every subscriber starts prepaid with 1,000,000.00 EUR (micro-units, exact). */
const START_BALANCE_MICROS = 1_000_000_000_000n;
/** The catalogue entry rated: 0.10 + 0.02 tax = 0.12 per charge. */
const RATING = { providerId: '6010', applicationId: '50000029', retailPrice: '0.10', tax: '0.02' };
const RATING_LOOKUP = {
  providerId: RATING.providerId,
  applicationId: RATING.applicationId,
  serviceId: '30000020',
  originId: '9',
  bundleId: '1234',
};
/** Donation plan: `amount` quotas in bytes, 10^15 bytes per period, at most 1,000 recipients. */
const DONATION_PLAN = {
  tenant: TENANT,
  name: 'Bench donations',
  unitMeteringType: 'volume',
  unitAmount: 1_000_000_000_000_000,
  shareable: true,
  recurring: false,
  shareQuotaType: 'amount',
  maxRecipients: 1000,
};
const DATA_DIR = path.join(__dirname, '.data');
const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');

/** Subscriber number `i` (0-based): 35387 then 7 digits. */
const msisdnOf = (i) => `35387${String(i).padStart(7, '0')}`;
/** Token number `i`: 43 URL-safe characters (256 bits), deterministic so reruns know it. */
const tokenOf = (i) => createHash('sha256').update(`sg-bench-token-${i}`).digest('base64url');
/** The token the benchmarks introspect: the middle one of `tokens`. */
const introspectedOf = (tokens) => {
  const i = Math.floor(tokens / 2);
  return { token: tokenOf(i), msisdn: msisdnOf(i % SIZES.subscribers), expiry: TOKEN_EXPIRY };
};

/**
 * A module of the build. reflect-metadata first, as the gateway's entry point loads it: the
 * dataset modules may reach type-graphql's decorated classes (e.g. through the GraphQL document
 * limits a trusted-document manifest is checked against).
 */
const dist = (p) => {
  require('reflect-metadata');
  return require(path.join(__dirname, '..', 'dist', 'src', p));
};

/**
 * True when the built dataset format (dist/src/dataset/dataset.schema.js, the source of
 * schema/dataset.schema.json) has the API client field `field`: the bench puts a field into its
 * dataset only when the build it runs on imports it, so it runs on builds from before the field.
 */
function clientFieldKnown(field) {
  const { DATASET_SCHEMA } = dist('dataset/dataset.schema');
  return Boolean(DATASET_SCHEMA?.properties?.clients?.items?.properties?.[field]);
}

/**
 * True when the bench client has a trusted-document manifest in the generated data (the build's
 * dataset format knows `clients[].trustedDocuments`); the `/graphql` trusted variant needs it.
 */
const trustedDocumentsInData = () => clientFieldKnown('trustedDocuments');

/**
 * The small rows of the data, imported through the project's dataset import (docs/contract.md
 * §9): tenant, the two API clients, the catalogue entry, the donation plan definition, the
 * location info type. The bench client gets the trusted-document manifest
 * (`trustedDocuments`, Apollo's persisted query manifest format, `trustedDocumentsOnly` false)
 * when the build knows the field, the second client its rate limit when the build knows
 * `rateLimit`.
 */
function smallDataset() {
  const bench = { tenant: TENANT, ...CLIENT, permissions: PERMISSIONS };
  if (trustedDocumentsInData()) {
    bench.trustedDocuments = {
      format: 'apollo-persisted-query-manifest',
      version: 1,
      operations: [
        { id: INTROSPECT_QUERY_SHA256, name: 'IntrospectToken', type: 'query', body: INTROSPECT_QUERY },
      ],
    };
    bench.trustedDocumentsOnly = false;
  }
  const limited = { tenant: TENANT, ...LIMITED_CLIENT, permissions: PERMISSIONS };
  if (clientFieldKnown('rateLimit')) limited.rateLimit = NEVER_REACHED_RATE_LIMIT;
  return {
    tenants: [{ name: TENANT }],
    clients: [bench, limited],
    ratings: [
      {
        tenant: TENANT,
        ...RATING_LOOKUP,
        kind: 'content',
        retailPrice: RATING.retailPrice,
        tax: RATING.tax,
      },
    ],
    planDefinitions: [DONATION_PLAN],
    locationInfoTypes: [{ tenant: TENANT, name: 'PLMNID', value: 4 }],
  };
}

/**
 * Identifies the generated data: generator version, sizes, the schema's migrations and the
 * small rows imported (so the data is regenerated when the dataset changes, e.g. once the
 * build knows trusted documents).
 */
function dataKey(sizes) {
  const migrations = fs.readdirSync(MIGRATIONS_DIR).sort();
  return createHash('sha256')
    .update(JSON.stringify({ GENERATOR_VERSION, sizes, migrations, dataset: smallDataset() }))
    .digest('hex')
    .slice(0, 12);
}

/** Inserts `count` rows `rowOf(i)` into `table`, `perStatement` rows per INSERT. */
async function bulkInsert(trx, table, count, rowOf, perStatement) {
  for (let start = 0; start < count; start += perStatement) {
    const rows = [];
    for (let i = start; i < Math.min(count, start + perStatement); i++) rows.push(rowOf(i));
    await trx(table).insert(rows);
  }
}

/** Migrates `db` and writes the whole dataset in `sizes`. */
async function generate(db, sizes, dialect) {
  const { migrateLatest } = dist('db/migrations');
  const { importDataset } = dist('dataset/import');
  await migrateLatest(db);
  await importDataset(db, smallDataset(), { nowMs: () => Date.now() });
  const tenantId = (await db('tenants').where({ name: TENANT }).first()).id;
  const clientId = (await db('api_clients').where({ username: CLIENT.username }).first()).id;
  const typeId = (await db('location_info_types').where({ tenant_id: tenantId }).first()).id;
  const now = Date.now();
  // knex writes a SQLite multi-row INSERT as a compound SELECT, at most 500 terms; MariaDB is
  // bounded by the packet size only.
  const per = () => (dialect === 'sqlite' ? 500 : 5000);
  await db.transaction(async (trx) => {
    if (dialect === 'mysql') await trx.raw('SET unique_checks = 0, foreign_key_checks = 0');
    await bulkInsert(
      trx,
      'subscribers',
      sizes.subscribers,
      (i) => ({
        tenant_id: tenantId,
        msisdn: msisdnOf(i),
        status: 'active',
        payment_type: 'prepaid',
        balance_micros: START_BALANCE_MICROS.toString(),
        currency: 'EUR',
        created_at: now,
        updated_at: now,
      }),
      per(),
    );
    await bulkInsert(
      trx,
      'tokens',
      sizes.tokens,
      (i) => ({
        tenant_id: tenantId,
        token_hash: createHash('sha256').update(tokenOf(i), 'utf8').digest('hex'),
        msisdn: msisdnOf(i % SIZES.subscribers),
        api_client_id: clientId,
        issued_at: now,
        expires_at_seconds: TOKEN_EXPIRY,
      }),
      per(),
    );
    // Explicit ids (the tables are empty) so children need no read-back.
    const zone = (i) => `ZONE-${String(i).padStart(6, '0')}`;
    const n = sizes.locations;
    const infos = sizes.infosPerLocation;
    await bulkInsert(trx, 'locations', n, (i) => ({ id: i + 1, tenant_id: tenantId, name: zone(i) }), per());
    await bulkInsert(
      trx,
      'location_rates',
      2 * n,
      (j) => {
        const i = j >> 1;
        return j % 2
          ? { location_id: i + 1, name: `${zone(i)}_VolumeRate`, description: 'per MB', location_rate: 3 }
          : { location_id: i + 1, name: `${zone(i)}_TimeBasedRate`, description: null, location_rate: 0 };
      },
      per(),
    );
    await bulkInsert(
      trx,
      'location_infos',
      n * infos,
      (j) => {
        const [i, k] = [Math.floor(j / infos), j % infos];
        return {
          tenant_id: tenantId,
          location_id: i + 1,
          type_id: typeId,
          name: infos === 1 ? `${zone(i)}-info` : `${zone(i)}-info-${k}`,
          description: null,
          value: String(20800 + ((i + k) % 99)),
        };
      },
      per(),
    );
    await bulkInsert(
      trx,
      'location_profiles',
      n,
      (i) => ({ location_id: i + 1, name: `${zone(i)}-default`, description: null }),
      per(),
    );
  });
}

/** A working copy of the cached SQLite file of `sizes` (generated on first use). */
async function prepareSqlite(sizes, log) {
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const cache = path.join(DATA_DIR, `sqlite-${sizes.tokens}-${dataKey(sizes)}.sqlite3`);
  if (!fs.existsSync(cache)) {
    const t0 = performance.now();
    const tmp = `${cache}.tmp`;
    fs.rmSync(tmp, { force: true });
    const db = dist('db/knex').createKnex(`sqlite:${tmp}`, dist('db/knex').MAINTENANCE_DB_LIMITS);
    try {
      await generate(db, sizes, 'sqlite');
      await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
      await db.raw('ANALYZE');
    } finally {
      await db.destroy();
    }
    for (const suffix of ['-wal', '-shm']) fs.rmSync(tmp + suffix, { force: true });
    fs.renameSync(tmp, cache);
    log(
      `generated ${path.relative(process.cwd(), cache)} in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  const work = path.join(DATA_DIR, `run-${process.pid}-${dataKey(sizes)}.sqlite3`);
  fs.copyFileSync(cache, work);
  return {
    url: `sqlite:${work}`,
    cleanup: () => {
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(work + suffix, { force: true });
    },
  };
}

/**
 * The MariaDB database of `sizes` at `baseUrl` (its name suffixed `_<tokens>` when the tokens
 * differ from the default), generated unless its `bench_meta` tag matches. Returns
 * `{ skipped }` with the reason when the server cannot be reached.
 */
async function prepareMariadb(baseUrl, sizes, log) {
  const url = new URL(baseUrl);
  const name = `${decodeURIComponent(url.pathname.slice(1)) || 'sg_bench'}${sizes.tokens === SIZES.tokens ? '' : `_${sizes.tokens}`}`;
  if (!/^\w+$/.test(name)) throw new Error(`BENCH_DATABASE_URL: database name ${name} is not a plain name`);
  url.pathname = `/${name}`;
  const mysql = require('mysql2/promise');
  let conn;
  try {
    conn = await mysql.createConnection({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      connectTimeout: 2000,
    });
  } catch (err) {
    return { skipped: `MariaDB at ${url.host} unreachable (${err.code ?? err.message})` };
  }
  const key = dataKey(sizes);
  try {
    const [tag] = await conn
      .query(`SELECT data_key FROM \`${name}\`.bench_meta`)
      .then(([rows]) => rows)
      .catch(() => []);
    if (tag?.data_key !== key) {
      const t0 = performance.now();
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
      const db = dist('db/knex').createKnex(url.toString(), dist('db/knex').MAINTENANCE_DB_LIMITS);
      try {
        await generate(db, sizes, 'mysql');
        await db.raw('ANALYZE TABLE tokens, subscribers, locations');
      } finally {
        await db.destroy();
      }
      await conn.query(`CREATE TABLE \`${name}\`.bench_meta (data_key VARCHAR(64) NOT NULL)`);
      await conn.query(`INSERT INTO \`${name}\`.bench_meta VALUES (?)`, [key]);
      log(`generated MariaDB database ${name} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
  } finally {
    await conn.end();
  }
  return { url: url.toString(), cleanup: () => undefined };
}

/**
 * The database of `backend` (`sqlite` or `mariadb`) holding the data of `sizes` (defaults
 * SIZES): `{ url, cleanup }`, or `{ skipped }` with a reason.
 */
function prepareDatabase(backend, { sizes: wanted = {}, mariadbUrl, log = console.log } = {}) {
  const sizes = { ...SIZES, ...wanted };
  if (backend === 'sqlite') return prepareSqlite(sizes, log);
  if (backend === 'mariadb') return prepareMariadb(mariadbUrl, sizes, log);
  throw new Error(`unknown backend ${backend} (BENCH_BACKENDS: sqlite, mariadb)`);
}

module.exports = {
  SIZES,
  TENANT,
  CLIENT,
  LIMITED_CLIENT,
  INTROSPECT_QUERY,
  INTROSPECT_QUERY_SHA256,
  trustedDocumentsInData,
  START_BALANCE_MICROS,
  RATING,
  RATING_LOOKUP,
  DONATION_PLAN,
  msisdnOf,
  tokenOf,
  introspectedOf,
  prepareDatabase,
};
