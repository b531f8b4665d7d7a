#!/usr/bin/env node
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { Knex } from 'knex';
import { findClientByUsername, insertClient } from '../auth/client.store';
import { hashPassword } from '../auth/password';
import { parsePermissions } from '../auth/permissions';
import { ConfigError, loadConfig } from '../config';
import { DatasetError, importDataset } from '../dataset/import';
import { MAINTENANCE_DB_LIMITS, createKnex } from '../db/knex';
import { migrateLatest } from '../db/migrations';
import { printGatewaySchema } from '../graphql/schema';
import { printOpenApi } from '../rest/openapi';
import { printDatasetSchema } from '../dataset/dataset.schema';
import { systemClock } from '../lib/clock';
import { createLogger } from '../logger';
import { runGateway } from '../server';
import { createServices } from '../services';
import { CdrService, parseCdrKind, parseWindow } from '../modules/cdrs/cdr.service';
import { CDR_KINDS } from '../modules/cdrs/cdr.layouts';
import { findTenantByName, upsertTenant } from '../modules/tenants/tenant.store';
import { DomainError } from '../errors';
import { VERSION } from '../version';

/** A CLI failure shown as one line on stderr with exit status 1. */
class CliError extends Error {}

/** The first field a validation error names (the CLI option it came from). */
function fieldOf(err: DomainError): string {
  const fields = (err.extensions as { fields?: { field: string }[] }).fields;
  return fields?.[0]?.field ?? 'input';
}

/** Environment variable `client create` reads the new client's password from. */
export const PASSWORD_ENV = 'GATEWAY_CLIENT_PASSWORD';

/** Reads one line from the terminal without echoing it (raw mode); Ctrl-C aborts. */
function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new CliError('aborted'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

/**
 * The new client's password, never from a command-line flag (it would land in shell history
 * and the process list): `GATEWAY_CLIENT_PASSWORD` when set, else a hidden prompt (asked twice)
 * on a terminal, else the first line of stdin (piped).
 */
async function readPassword(): Promise<string> {
  const fromEnv = process.env[PASSWORD_ENV];
  if (fromEnv) return fromEnv;
  if (process.stdin.isTTY) {
    const first = await promptHidden('password: ');
    const again = await promptHidden('password again: ');
    if (first !== again) throw new CliError('the two passwords differ');
    return first;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
}

/** Runs `fn` with a maintenance connection to DATABASE_URL, closed afterwards whatever happens. */
async function withDb<T>(fn: (db: Knex) => Promise<T>): Promise<T> {
  const db = createKnex(loadConfig().databaseUrl, MAINTENANCE_DB_LIMITS);
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

/** `migrate`: brings the database to the latest schema and prints the migrations it applied. */
function addMigrate(program: Command): void {
  program
    .command('migrate')
    .description('bring the database (DATABASE_URL) to the latest schema')
    .action(() =>
      withDb(async (db) => {
        const applied = await migrateLatest(db);
        process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'already up to date\n');
      }),
    );
}

/** Options of `import`. */
interface ImportCliOptions {
  resetBalances?: boolean;
  resetQuotas?: boolean;
  reason?: string;
}

/**
 * `import <file> [--reset-balances] [--reset-quotas] [--reason text]`: validates a dataset file
 * (CONTRACT §9), upserts it in short batches that wait their turn beside a serving gateway, and
 * prints the summary as one JSON line. Existing balances and plan remaining quotas that differ
 * from the file are kept (counted on stderr) unless an option resets them through the ledger
 * (docs/cli.md "Importing into a live database").
 */
function addImport(program: Command): void {
  program
    .command('import <file>')
    .description(
      'validate a dataset file (CONTRACT §9) and upsert it; a bad file changes nothing; existing balances and plan remaining quotas are kept unless reset',
    )
    .option('--reset-balances', "set differing existing balances to the file's through ledger adjustments")
    .option(
      '--reset-quotas',
      "set differing existing plans' remaining to the file's, with a plan.quota.reset event each",
    )
    .option(
      '--reason <text>',
      'reason on those adjustments and events (default: "dataset import <file name>")',
    )
    .action((file: string, opts: ImportCliOptions) =>
      withDb(async (db) => {
        let doc: unknown;
        try {
          doc = JSON.parse(fs.readFileSync(file, 'utf8'));
        } catch (err) {
          throw new CliError(`cannot read ${file} as JSON: ${(err as Error).message}`);
        }
        const reason = (opts.reason ?? `dataset import ${path.basename(file)}`).slice(0, 255);
        if (!reason.trim()) throw new CliError('--reason: 1-255 characters');
        await migrateLatest(db);
        const summary = await importDataset(db, doc, systemClock, {
          resetBalances: opts.resetBalances === true,
          resetQuotas: opts.resetQuotas === true,
          reason,
        });
        process.stdout.write(`${JSON.stringify(summary)}\n`);
        const { balances, quotas } = summary.kept;
        if (balances.kept || quotas.kept)
          process.stderr.write(
            `kept ${balances.kept} existing balance(s) and ${quotas.kept} plan remaining quota(s) that differ from the file (--reset-balances / --reset-quotas set them through the ledger)\n`,
          );
      }),
    );
}

/** Options of `client create`; `password` is only declared so that passing it can be refused. */
interface ClientCreateOptions {
  tenant: string;
  username: string;
  password?: string;
  permissions: string;
}

/**
 * `client create`: checks the options, reads the password ({@link readPassword}, at least 8
 * characters), creates the tenant when missing and inserts the client.
 * @throws CliError for `--password`, a bad option, a short password or an existing username.
 */
async function createClient(db: Knex, opts: ClientCreateOptions): Promise<void> {
  if (opts.password !== undefined)
    throw new CliError(
      `--password is not accepted: a password on the command line lands in shell history and the process list; set ${PASSWORD_ENV}, pipe it on stdin, or type it at the prompt`,
    );
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(opts.tenant)) throw new CliError('--tenant: 1-64 of A-Z a-z 0-9 . _ -');
  if (!/^[^:\s]{1,128}$/.test(opts.username))
    throw new CliError('--username: 1-128 characters, no colon or space');
  let permissions;
  try {
    permissions = parsePermissions(opts.permissions);
  } catch (err) {
    throw new CliError(`--permissions: ${(err as Error).message}`);
  }
  const password = await readPassword();
  if (password.length < 8) throw new CliError('password: at least 8 characters');
  await migrateLatest(db);
  if (await findClientByUsername(db, opts.username))
    throw new CliError(`client ${opts.username} already exists`);
  const now = systemClock.nowMs();
  const { tenant } = await upsertTenant(db, opts.tenant, now);
  const passwordHash = await hashPassword(password);
  await insertClient(
    db,
    { tenantId: tenant.id, username: opts.username, passwordHash, permissions, enabled: true },
    now,
  );
  process.stdout.write(
    `created client ${opts.username} in tenant ${tenant.name}: ${permissions.join(',') || '(no permissions)'}\n`,
  );
}

/** `client create --tenant --username [--permissions]`: a new API client (CONTRACT §2, §8). */
function addClient(program: Command): void {
  program
    .command('client')
    .description('manage API clients')
    .command('create')
    .description(
      `create an API client (its tenant is created when missing); the password (at least 8 characters) comes from ${PASSWORD_ENV}, else a prompt on a terminal, else the first line of stdin`,
    )
    .requiredOption('--tenant <name>', 'tenant name')
    .requiredOption('--username <name>', 'login name (no colon)')
    .addOption(new Option('--password <password>').hideHelp())
    .addOption(new Option('--permissions <list>', 'comma-separated permissions').default(''))
    .action((opts: ClientCreateOptions) => withDb((db) => createClient(db, opts)));
}

/**
 * `plan renew <planId>`: starts the plan's new period and runs its recurring donation, then prints
 * the plan's id, period and remaining quota and the donation's outcome as one JSON line.
 */
function addPlan(program: Command): void {
  program
    .command('plan')
    .description('manage subscriber plans')
    .command('renew <planId>')
    .description("start a plan's new period and run its recurring donation (CONTRACT §5)")
    .action((planId: string) =>
      withDb(async (db) => {
        if (!/^[1-9][0-9]{0,9}$/.test(planId)) throw new CliError('planId: a positive integer');
        const config = loadConfig();
        await migrateLatest(db);
        const sharing = createServices(db, config, systemClock, createLogger(config.logLevel)).sharing;
        const tenantId = await sharing.planTenant(Number(planId));
        if (tenantId === undefined) throw new CliError(`plan ${planId} not found`);
        const r = await sharing.renewPlan({ tenantId }, Number(planId));
        process.stdout.write(
          `${JSON.stringify({ planId: r.plan.id, period: r.plan.period, remaining: r.plan.remaining, donation: r.donation && { id: r.donation.id, errorCode: r.donation.errorCode, recipients: r.donation.recipients } })}\n`,
        );
      }),
    );
}

/** Options of `cdr export`; `header` is false with `--no-header`. */
interface CdrExportOptions {
  type: string;
  from: string;
  to: string;
  out?: string;
  tenant?: string;
  header: boolean;
}

/**
 * `cdr export`: writes the CDRs of one type in [from, to) as CSV to `--out` (then counts them on
 * stderr) or stdout.
 * @throws CliError naming the option for a bad type, time window or unknown tenant.
 */
async function exportCdrs(db: Knex, opts: CdrExportOptions): Promise<void> {
  let filter;
  try {
    filter = { type: parseCdrKind(opts.type), ...parseWindow(opts.from, opts.to) };
  } catch (err) {
    if (err instanceof DomainError) throw new CliError(`--${fieldOf(err)}: ${err.message}`);
    throw err;
  }
  let tenantId: number | undefined;
  if (opts.tenant !== undefined) {
    const tenant = await findTenantByName(db, opts.tenant);
    if (!tenant) throw new CliError(`--tenant: no tenant ${opts.tenant}`);
    tenantId = tenant.id;
  }
  const file = opts.out === undefined ? undefined : fs.createWriteStream(opts.out);
  const write = (chunk: string) =>
    new Promise<void>((resolve, reject) => {
      const target = file ?? process.stdout;
      target.write(chunk, (err) => (err ? reject(err) : resolve()));
    });
  try {
    const n = await new CdrService(db).exportCsv({ ...filter, tenantId }, write, opts.header);
    if (file) process.stderr.write(`${n} CDRs written to ${opts.out}\n`);
  } finally {
    if (file) await new Promise<void>((resolve) => file.end(resolve));
  }
}

/** `cdr export --type --from --to [--out] [--tenant] [--no-header]` (CONTRACT §8, CDRs). */
function addCdr(program: Command): void {
  program
    .command('cdr')
    .description('CDRs (CONTRACT §8)')
    .command('export')
    .description(
      'write the CDRs of one type generated in [from, to) as CSV (RFC 4180) in the published field order, dates DD/MM/YYYY and times hh:mm:ss (UTC), oldest first',
    )
    .requiredOption('--type <type>', `one of ${CDR_KINDS.join(', ')}`)
    .requiredOption(
      '--from <time>',
      'start, inclusive: ISO-8601 date (UTC midnight) or date-time with Z or an offset',
    )
    .requiredOption('--to <time>', 'end, exclusive: as --from')
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--tenant <name>', "only this tenant's CDRs (default: every tenant)")
    .option('--no-header', 'omit the header line of field names')
    .action((opts: CdrExportOptions) => withDb((db) => exportCdrs(db, opts)));
}

/** `serve`: what `npm start` runs (migrate, load the demo data into an empty database, serve). */
function addServe(program: Command): void {
  program
    .command('serve')
    .description('migrate, load the demo data into an empty database, and serve')
    .action(async () => {
      await runGateway(loadConfig());
    });
}

/** `schema [--openapi | --dataset] [--write <file>]`: prints one of the generated schema documents. */
function addSchema(program: Command): void {
  program
    .command('schema')
    .description('print the GraphQL SDL (what schema/schema.graphql holds)')
    .option('--write <file>', 'write it to a file instead')
    .option('--openapi', 'the REST OpenAPI 3.1 document instead (schema/openapi.json)')
    .option('--dataset', "the dataset format's JSON Schema instead (schema/dataset.schema.json)")
    .action(async (opts: { write?: string; openapi?: boolean; dataset?: boolean }) => {
      const text = opts.openapi
        ? printOpenApi()
        : opts.dataset
          ? printDatasetSchema()
          : await printGatewaySchema();
      if (opts.write) fs.writeFileSync(opts.write, text);
      else process.stdout.write(text);
    });
}

/**
 * The gateway CLI (CONTRACT §8), `npm run -s cli -- <command>` (`-s`: no npm banner on stdout)
 * or the package bin `subscriber-gateway` after `npm run build`:
 * `migrate`, `import <file.json>`, `client create`, `plan renew <planId>`, `cdr export`, `serve`, `schema`.
 * Commands are listed in `--help` in the order they are added here.
 */
export function buildCli(): Command {
  const program = new Command('subscriber-gateway')
    .version(VERSION)
    .description('Subscriber Gateway command line');
  addMigrate(program);
  addImport(program);
  addClient(program);
  addPlan(program);
  addCdr(program);
  addServe(program);
  addSchema(program);
  return program;
}

if (require.main === module) {
  buildCli()
    .parseAsync(process.argv)
    .catch((err) => {
      if (err instanceof ConfigError || err instanceof CliError || err instanceof DatasetError) {
        process.stderr.write(`error: ${err.message}\n`);
      } else {
        process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      }
      process.exit(1);
    });
}
