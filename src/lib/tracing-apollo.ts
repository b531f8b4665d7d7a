import type { ApolloServerPlugin } from '@apollo/server';
import { Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { startChildSpan } from './tracing';

/**
 * Apollo plugin (docs/platform.md "Tracing"): the operation span of a `/graphql` request,
 * `<type> <operation name>` with `graphql.operation.type` and `graphql.operation.name`, a child
 * of the HTTP server span from the start to the end of execution, status ERROR when execution
 * fails or the result has errors. Apollo's hooks cannot make it the active span while resolvers
 * run, so the statement spans of a `/graphql` operation are children of the server span. Mounted
 * only when tracing is on (src/http/apollo.ts).
 */
export function tracingPlugin<T extends object>(): ApolloServerPlugin<T> {
  return {
    requestDidStart: async () => {
      let span: Span | undefined;
      return {
        executionDidStart: async ({ operation, operationName }) => {
          const type = operation?.operation ?? 'query';
          span = startChildSpan(
            `${type} ${operationName ?? ''}`.trim(),
            { 'graphql.operation.type': type, 'graphql.operation.name': operationName ?? '' },
            SpanKind.INTERNAL,
          );
          return {
            executionDidEnd: async (err) => {
              if (err) span?.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
            },
          };
        },
        willSendResponse: async ({ errors }) => {
          if (errors?.length) span?.setStatus({ code: SpanStatusCode.ERROR, message: errors[0].message });
          span?.end();
        },
      };
    },
  };
}
