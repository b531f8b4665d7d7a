import {
  DocumentNode,
  ExecutionResult,
  GraphQLError,
  GraphQLFormattedError,
  GraphQLSchema,
  Kind,
  OperationDefinitionNode,
  ValidationRule,
  ValueNode,
  getOperationAST,
  parse,
  specifiedRules,
  validate,
  visit,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import Negotiator from 'negotiator';
import type { Context } from 'koa';
import { GatewayContext } from './context';
import { assertCredentials } from './credentials-plugin';
import { databaseOutageIn } from './format-error';
import { CompiledOperation, executorOf } from './jit-executor';
import {
  ExecutionBudget,
  GraphqlLimitsOptions,
  MAX_DOCUMENT_TOKENS,
  OperationCost,
  assertWithinLimits,
  executionTimedOut,
  limitedOperationCost,
  timeoutResult,
} from './limits';
import { RETRY_AFTER_SECONDS } from '../errors';

/**
 * The `/graphql` fast path (docs/graphql.md "Fast path"; issue 33): the common request, a JSON
 * `POST` of `{query, variables?, operationName?}` whose document parses, validates, resolves to a
 * query or mutation, passes the credentials check and the limits, is executed here rather than
 * by Apollo Server's request pipeline, with the same rules and the same answer:
 *
 * - documents are parsed (with the token limit) and validated (graphql's `specifiedRules` and the
 *   depth rule: Apollo's rules) once per query text, kept in a bounded LRU keyed by that text;
 *   each operation of a document is resolved once per `operationName`, runs on graphql-js
 *   `execute` the first time and is compiled with graphql-jit the second time it is seen
 *   (src/graphql/jit-executor.ts), so a document sent once never pays for a compilation;
 * - the credentials check (src/graphql/credentials-plugin.ts) and the cost and page-size limits
 *   (src/graphql/limits.ts) are the plugins' own functions; an operation's cost is kept with the
 *   operation when no variable can change it (no variable in a page size, `ids`,
 *   `representations`, `page`, `@skip` or `@include`);
 * - the answer is Apollo's: HTTP 200 with `{"data":…}` or `{"errors":[…],"data":…}` (errors
 *   through the same `formatError`, statuses and headers from their `http` extension), 503 with
 *   `retry-after` on a database outage, 504 `TIMEOUT` past the deadline, `cache-control:
 *   no-store`, the content type Apollo negotiates from `accept`.
 *
 * Anything else is left to Apollo before anything executes ({@link FastPath.answer} returns
 * false): bodies Apollo would refuse or treat specially (persisted queries, batches), parse and
 * validation errors, an unknown `operationName`, subscriptions, refusals by the credentials check
 * or the limits, variables that do not coerce. Apollo then answers them with its own codes.
 */

/** Why the fast path answered or left a request to Apollo (`graphql_fast_path_total{outcome}`). */
export type FastPathOutcome =
  /** Executed and answered by the fast path. */
  | 'answered'
  /** The body is not a plain `{query, variables?, operationName?, extensions?}` (or a persisted query). */
  | 'fallback_body'
  /** The `accept` header admits no JSON type Apollo serves (Apollo answers 406). */
  | 'fallback_accept'
  /** The document does not parse or validate, or no operation matches `operationName`. */
  | 'fallback_document'
  /** A subscription (refused over HTTP by Apollo). */
  | 'fallback_subscription'
  /** Refused by the credentials check or the limits, or its variables do not coerce. */
  | 'fallback_refused';

const counts: Record<FastPathOutcome, number> = {
  answered: 0,
  fallback_body: 0,
  fallback_accept: 0,
  fallback_document: 0,
  fallback_subscription: 0,
  fallback_refused: 0,
};

/** Requests per {@link FastPathOutcome} since the process started (every app of the process). */
export function fastPathCounts(): Readonly<Record<FastPathOutcome, number>> {
  return { ...counts };
}

/** What the fast path needs: Apollo's schema, error formatting and the plugins' settings. */
export interface FastPathOptions {
  schema: GraphQLSchema;
  /** Apollo's `formatError` (src/graphql/format-error.ts). */
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  /** Validation rules Apollo adds to graphql's `specifiedRules` (the depth rule). */
  validationRules: readonly ValidationRule[];
  /** Schema introspection without credentials while the sandbox is enabled (credentials plugin). */
  sandboxEnabled: boolean;
  /** The limits plugin's options. */
  limits: GraphqlLimitsOptions;
  /** Most documents kept (default {@link FAST_PATH_DOCUMENTS}). */
  maxDocuments?: number;
}

/** Default bound of the document cache: distinct query texts kept parsed, validated and compiled. */
export const FAST_PATH_DOCUMENTS = 1000;
/** Bound of the document cache in query-text characters (64 MiB-ish of text at most). */
const FAST_PATH_TEXT_CHARS = 32 * 1024 * 1024;

/** The fast path of one Apollo server; see the module comment. */
export interface FastPath {
  /**
   * True when the request may take the fast path and its context should be made before Apollo
   * (a `POST` with `content-type: application/json` and a JSON object body): then the route
   * creates the request's context once and hands it to {@link answer} and, if that declines,
   * to Apollo.
   */
  accepts(ctx: Context): boolean;
  /**
   * Answers the request (status, headers, body set on `ctx`) and returns true, or returns false
   * having executed and sent nothing: Apollo must answer it.
   */
  answer(ctx: Context, gctx: GatewayContext): Promise<boolean>;
}

/** One resolved operation of a cached document. */
interface OperationEntry {
  operation: OperationDefinitionNode;
  executor: CompiledOperation;
  /** The cost when no variable can change it; undefined otherwise or before the first request. */
  cost: OperationCost | undefined;
  costUsesVariables: boolean;
}

/** One cached document: parsed and validated, or `invalid` (Apollo answers it). */
interface DocumentEntry {
  document: DocumentNode | undefined;
  /** Resolved operations by `operationName` (`''` for none). */
  operations: Map<string, OperationEntry>;
}

type JsonRecord = Record<string, unknown>;

const isRecord = (v: unknown): v is JsonRecord =>
  !!v && typeof v === 'object' && !Array.isArray(v) && !Buffer.isBuffer(v);

/** The arguments through which a variable changes an operation's cost (src/graphql/limits.ts). */
const COST_ARGUMENTS = new Set(['first', 'last', 'page', 'ids', 'representations']);

function hasVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(hasVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((f) => hasVariable(f.value));
  return false;
}

/** True when a variable of the document can change an operation's cost (conservative). */
function costUsesVariables(document: DocumentNode): boolean {
  let uses = false;
  visit(document, {
    Argument(node) {
      if (COST_ARGUMENTS.has(node.name.value) && hasVariable(node.value)) uses = true;
    },
    Directive(node) {
      if (node.arguments?.some((a) => hasVariable(a.value))) uses = true;
    },
  });
  return uses;
}

/** Apollo's `MEDIA_TYPES` for a single JSON result, in its order of preference. */
const JSON_MEDIA_TYPES = [
  'application/json; charset=utf-8',
  'application/graphql-response+json; charset=utf-8',
  'application/json; callbackSpec=1.0; charset=utf-8',
];

const contentTypes = new Map<string, string | null>();

/**
 * The content type Apollo gives a single result for an `accept` header (Apollo's
 * `chooseContentTypeForSingleResultResponse`), null when none is acceptable; memoized for the
 * first hundred distinct headers.
 */
function contentTypeFor(accept: string | undefined): string | null {
  if (!accept) return JSON_MEDIA_TYPES[0];
  let type = contentTypes.get(accept);
  if (type === undefined) {
    type = new Negotiator({ headers: { accept } }).mediaType(JSON_MEDIA_TYPES) ?? null;
    if (contentTypes.size < 100) contentTypes.set(accept, type);
  }
  return type;
}

/** Apollo's `isPartialHTTPGraphQLHead`: an `http` extension it reads a status and headers from. */
function httpHeadOf(x: unknown): { status?: number; headers?: Map<string, string> } | undefined {
  if (!x || typeof x !== 'object') return undefined;
  const head = x as { status?: unknown; headers?: unknown };
  if ('status' in head && typeof head.status !== 'number') return undefined;
  if ('headers' in head && !(head.headers instanceof Map)) return undefined;
  return head as { status?: number; headers?: Map<string, string> };
}

/** Apollo's `ensureGraphQLError`. */
function ensureGraphQLError(error: unknown): GraphQLError {
  const err = error instanceof Error ? error : new GraphQLError(`Unexpected error value: ${String(error)}`);
  return err instanceof GraphQLError ? err : new GraphQLError(err.message, { originalError: err });
}

/** The HTTP head of an answer being built. */
interface Head {
  status: number | undefined;
  headers: Map<string, string>;
}

/**
 * Apollo's `normalizeAndFormatErrors` (no stack traces): each error's `code` defaults to
 * `INTERNAL_SERVER_ERROR`, its `http` extension sets the answer's status and headers and is
 * removed, then `formatError` applies (an error it throws answers `Internal server error`).
 */
function formatErrors(
  errors: readonly unknown[],
  formatError: FastPathOptions['formatError'],
  head: Head,
): GraphQLFormattedError[] {
  return errors.map((error) => {
    try {
      const graphqlError = ensureGraphQLError(error);
      // graphql-jit's errors leave `extensions` undefined where graphql-js's hold `{}`.
      const own = (graphqlError.extensions as JsonRecord | undefined) ?? {};
      const extensions: JsonRecord = { ...own, code: own.code ?? 'INTERNAL_SERVER_ERROR' };
      const http = httpHeadOf(extensions.http);
      if (http) {
        if (http.status) head.status = http.status;
        if (http.headers) for (const [k, v] of http.headers) head.headers.set(k.toLowerCase(), v);
        delete extensions.http;
      }
      return formatError({ ...graphqlError.toJSON(), extensions }, error);
    } catch {
      return { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    }
  });
}

/**
 * Builds the fast path of `/graphql` (see the module comment).
 */
export function createFastPath(opts: FastPathOptions): FastPath {
  const { schema, formatError, sandboxEnabled, limits } = opts;
  const rules = [...specifiedRules, ...opts.validationRules];
  const documents = new LRUCache<string, DocumentEntry>({
    max: opts.maxDocuments ?? FAST_PATH_DOCUMENTS,
    maxSize: FAST_PATH_TEXT_CHARS,
    sizeCalculation: (_entry, key) => Math.max(key.length, 1),
  });

  const documentOf = (query: string): DocumentEntry => {
    let entry = documents.get(query);
    if (entry) return entry;
    let document: DocumentNode | undefined;
    try {
      document = parse(query, { maxTokens: MAX_DOCUMENT_TOKENS });
      if (validate(schema, document, rules).length) document = undefined;
    } catch {
      document = undefined;
    }
    entry = { document, operations: new Map() };
    documents.set(query, entry);
    return entry;
  };

  const operationOf = (entry: DocumentEntry, name: string | undefined): OperationEntry | null => {
    const key = name ?? '';
    let op = entry.operations.get(key);
    if (op) return op;
    const document = entry.document!;
    const operation = getOperationAST(document, name);
    // An unknown name is not kept: clients could otherwise grow the entry without bound.
    if (!operation) return null;
    op = {
      operation,
      executor: executorOf(schema, document, name, 1),
      cost: undefined,
      costUsesVariables: costUsesVariables(document),
    };
    entry.operations.set(key, op);
    return op;
  };

  const fallback = (outcome: Exclude<FastPathOutcome, 'answered'>): false => {
    counts[outcome]++;
    return false;
  };

  return {
    accepts(ctx) {
      if (ctx.method !== 'POST' || !isRecord(ctx.request.body)) return false;
      const type = ctx.get('content-type');
      const semi = type.indexOf(';');
      return (semi < 0 ? type : type.slice(0, semi)).trim().toLowerCase() === 'application/json';
    },

    async answer(ctx, gctx) {
      const body = ctx.request.body as JsonRecord;
      const { query, variables, operationName, extensions } = body;
      if (
        typeof query !== 'string' ||
        query === '' ||
        (variables !== undefined && variables !== null && !isRecord(variables)) ||
        (operationName !== undefined && operationName !== null && typeof operationName !== 'string') ||
        (extensions !== undefined &&
          extensions !== null &&
          (!isRecord(extensions) || 'persistedQuery' in extensions))
      )
        return fallback('fallback_body');
      const contentType = contentTypeFor(ctx.get('accept') || undefined);
      if (contentType === null) return fallback('fallback_accept');
      const entry = documentOf(query);
      if (!entry.document) return fallback('fallback_document');
      const op = operationOf(entry, operationName ?? undefined);
      if (!op) return fallback('fallback_document');
      const { operation } = op;
      if (operation.operation === 'subscription') return fallback('fallback_subscription');
      const vars = (variables ?? undefined) as JsonRecord | undefined;
      try {
        // Awaited only for a portal token (an API client's check is synchronous: a hot path).
        const checking = assertCredentials(gctx, entry.document, operation, sandboxEnabled);
        if (checking) await checking;
        let cost = op.cost;
        if (!cost) {
          cost = limitedOperationCost(schema, entry.document, operation, vars, operation.name?.value, limits);
          if (!op.costUsesVariables) op.cost = cost;
        }
        assertWithinLimits(cost, limits.maxCost);
      } catch {
        return fallback('fallback_refused');
      }
      const budget = new ExecutionBudget(limits.timeoutMs);
      gctx.budget = budget;
      let result: ExecutionResult;
      let thrown = false;
      try {
        result = await op.executor.run(gctx, vars ?? {});
      } catch (err) {
        // As Apollo: an executor that throws answers that one error, HTTP 500 unless it says otherwise.
        result = { errors: [ensureGraphQLError(err)] };
        thrown = true;
      }
      // Variables that do not coerce: nothing ran, Apollo answers (BAD_USER_INPUT, 400).
      if (!thrown && result.data === undefined) return fallback('fallback_refused');
      counts.answered++;
      const head: Head = { status: undefined, headers: new Map() };
      const errors = result.errors;
      const formatted = errors ? formatErrors(errors, formatError, head) : undefined;
      if (thrown) head.status ??= 500;
      let payload: unknown = { errors: formatted, data: result.data, extensions: result.extensions };
      if (errors && databaseOutageIn(errors)) {
        head.status = 503;
        head.headers.set('retry-after', String(RETRY_AFTER_SECONDS));
      }
      if (executionTimedOut(budget, errors)) {
        head.status = 504;
        payload = timeoutResult(limits.timeoutMs);
      }
      head.headers.set('cache-control', 'no-store');
      for (const [k, v] of head.headers) ctx.set(k, v);
      ctx.set('content-type', contentType);
      ctx.status = head.status ?? 200;
      ctx.body = `${JSON.stringify(payload)}\n`;
      return true;
    },
  };
}
