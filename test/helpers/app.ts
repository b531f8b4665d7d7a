import http from 'node:http';
import { AddressInfo } from 'node:net';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { GatewayApp, createApp } from '../../src/app';
import { Config, loadConfig } from '../../src/config';
import { importDataset } from '../../src/dataset/import';
import { Dataset } from '../../src/dataset/dataset.schema';
import { createKnex } from '../../src/db/knex';
import { Logger, createLogger } from '../../src/logger';
import { FakeClock } from './clock';
import { TestDb, createTestDb, reopenTestDb } from './db';
import { baseDataset, basic } from './fixtures';
import { checkResponse, prepareConformance } from './openapi-conformance';

/** A response as tests read it. */
export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Body parsed as JSON. */
  json(): Record<string, unknown>;
  /** Body parsed as XML (checks it is well-formed first); returns the `<response>` content. */
  xml(): Record<string, unknown>;
}

/** Options of one request. */
export interface RequestOptions {
  /** Basic credentials of a fixture client, raw header value, or none. */
  as?: string;
  auth?: string;
  headers?: Record<string, string>;
  /** Serialized as JSON unless `raw` is given. */
  body?: unknown;
  raw?: string | Buffer;
  /** Sends `accept: application/json`. */
  json?: boolean;
}

/** A running gateway on an ephemeral port over a fresh database. */
export interface TestApp {
  url: string;
  tdb: TestDb;
  clock: FakeClock;
  app: GatewayApp;
  request(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  close(): Promise<void>;
}

const xmlParser = new XMLParser({ parseTagValue: false, trimValues: false, isArray: () => false });

/** Parses a REST XML body; throws when it is not well-formed or lacks the declaration/root. */
export function parseXml(text: string): Record<string, unknown> {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new Error(`not well-formed XML: ${JSON.stringify(valid)}\n${text}`);
  if (!text.startsWith('<?xml version="1.0" encoding="UTF-8"?><response>'))
    throw new Error(`bad XML prologue: ${text.slice(0, 80)}`);
  return xmlParser.parse(text).response as Record<string, unknown>;
}

/**
 * Starts the gateway over a fresh migrated database loaded with `dataset` (default the base
 * fixture), or, with `sameDatabaseAs`, a second instance over that app's database (its own
 * connection pool, the same clock; closing it leaves the database).
 */
export async function startTestApp(
  opts: {
    dataset?: Dataset;
    env?: Record<string, string>;
    sandboxAuthorization?: string;
    sameDatabaseAs?: TestApp;
    /**
     * Rewrites the database URL the app itself connects to (e.g. through a fault-injecting
     * proxy); the app then gets its own knex with the DB_* limits of `env`.
     */
    database?: (url: string) => string;
    /** The app's logger (default: silent). */
    logger?: Logger;
  } = {},
): Promise<TestApp> {
  prepareConformance();
  const first = opts.sameDatabaseAs;
  const tdb = first ? reopenTestDb(first.tdb) : await createTestDb();
  const clock = first?.clock ?? new FakeClock();
  if (!first) await importDataset(tdb.db, opts.dataset ?? baseDataset(), clock);
  const config: Config = { ...loadConfig({ LOG_LEVEL: 'silent', ...opts.env }), databaseUrl: tdb.url };
  const appDb = opts.database ? createKnex(opts.database(tdb.url), config.db) : tdb.db;
  const app = await createApp({
    config,
    db: appDb,
    logger: opts.logger ?? createLogger('silent'),
    clock,
    sandboxAuthorization: opts.sandboxAuthorization,
  });
  const server = http.createServer(app.koa.callback());
  // fetch() keeps connections alive between requests; a test that blocks the event loop for
  // longer than Node's 5 s default would otherwise race the server closing the idle socket
  // (ECONNRESET on the next request). close() below ends every connection anyway.
  server.keepAliveTimeout = 60_000;
  app.attach(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const request = async (method: string, path: string, o: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.as) headers.authorization = basic(o.as);
    if (o.auth) headers.authorization = o.auth;
    if (o.json) headers.accept = 'application/json';
    let body: string | Buffer | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
        headers['content-type'] = 'application/json';
    }
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    // Every response of a documented REST path must match schema/openapi.json (CONTRACT §8).
    checkResponse(method, path, res.status, res.headers.get('content-type'), text, parseXml);
    return {
      status: res.status,
      headers: res.headers,
      text,
      json: () => JSON.parse(text) as Record<string, unknown>,
      xml: () => parseXml(text),
    };
  };

  return {
    url,
    tdb,
    clock,
    app,
    request,
    close: async () => {
      await app.stopBackground();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await app.close();
      if (appDb !== tdb.db) await appDb.destroy();
      await tdb.destroy();
    },
  };
}
