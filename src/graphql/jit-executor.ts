import {
  DocumentNode,
  ExecutionResult,
  GraphQLSchema,
  TypeInfo,
  execute,
  getNamedType,
  isAbstractType,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { GatewayContext } from './context';

/**
 * Runs one operation of a parsed, validated document with a request's context and raw
 * variables (coerced by the executor; a variable that does not coerce answers `{ errors }`
 * without `data`, nothing executed).
 */
export type OperationExecutor = (
  contextValue: GatewayContext,
  variableValues: Record<string, unknown>,
) => Promise<ExecutionResult> | ExecutionResult;

/** Which engine runs an operation: see {@link executorOf}. */
export type ExecutorEngine = 'jit' | 'execute' | 'pending';

/** An operation ready to run, compiled on first use. */
export interface CompiledOperation {
  /**
   * `jit` once graphql-jit compiled the operation, `execute` when it could not (graphql-js's
   * interpreter), `pending` before its first run.
   */
  engine(): ExecutorEngine;
  run: OperationExecutor;
}

/**
 * How an operation runs on the hot paths (the REST rows, src/rest/router.ts, and the `/graphql`
 * fast path, src/graphql/fast-path.ts): compiled with graphql-jit, which executes the same
 * resolvers with the same context, variables and errors as graphql-js `execute` but without
 * re-walking the document on every request; graphql-js `execute` when graphql-jit cannot
 * compile the operation (it answers errors, or throws), or when the document selects a field of
 * an interface or union whose type resolver is asynchronous (type-graphql's are: `Node`,
 * `UserError`), which graphql-jit 0.8 does not await. The compilation happens on the first run,
 * not when this is called; with `interpretFirst`, on the second run (the first runs on
 * graphql-js `execute`), so that a document sent once never pays for its compilation.
 * @param operationName the operation of a document holding several (undefined: its only one).
 * @param interpretFirst runs before compiling (default 0).
 */
export function executorOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string,
  interpretFirst = 0,
): CompiledOperation {
  const interpret: OperationExecutor = (contextValue, variableValues) =>
    execute({ schema, document, contextValue, variableValues, operationName });
  let engine: ExecutorEngine = 'pending';
  const compile = (): OperationExecutor => {
    let compiled: ReturnType<typeof compileQuery<Record<string, unknown>>> | undefined;
    if (selectsAsyncAbstractType(schema, document)) {
      engine = 'execute';
      return interpret;
    }
    try {
      compiled = compileQuery<Record<string, unknown>>(schema, document, operationName, {
        disablingCapturingStackErrors: true,
      });
    } catch {
      compiled = undefined;
    }
    if (!compiled || !isCompiledQuery(compiled)) {
      engine = 'execute';
      return interpret;
    }
    engine = 'jit';
    const query = compiled.query;
    return (contextValue, variableValues) => query(undefined, contextValue, variableValues);
  };
  let run: OperationExecutor | undefined;
  let interpreted = 0;
  return {
    engine: () => engine,
    run: (contextValue, variableValues) => {
      if (run) return run(contextValue, variableValues);
      if (interpreted < interpretFirst) {
        interpreted++;
        return interpret(contextValue, variableValues);
      }
      return (run = compile())(contextValue, variableValues);
    },
  };
}

const asyncAbstractTypes = new WeakMap<GraphQLSchema, ReadonlySet<string>>();

/** Names of the schema's interfaces and unions whose `resolveType` is an async function. */
function asyncAbstractTypesOf(schema: GraphQLSchema): ReadonlySet<string> {
  let names = asyncAbstractTypes.get(schema);
  if (!names) {
    names = new Set(
      Object.values(schema.getTypeMap())
        .filter((t) => isAbstractType(t) && t.resolveType?.constructor.name === 'AsyncFunction')
        .map((t) => t.name),
    );
    asyncAbstractTypes.set(schema, names);
  }
  return names;
}

/** True when a field the document selects returns an abstract type with an async type resolver. */
function selectsAsyncAbstractType(schema: GraphQLSchema, document: DocumentNode): boolean {
  const names = asyncAbstractTypesOf(schema);
  if (!names.size) return false;
  const typeInfo = new TypeInfo(schema);
  let found = false;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const type = typeInfo.getType();
        if (type && names.has(getNamedType(type).name)) found = true;
      },
    }),
  );
  return found;
}
