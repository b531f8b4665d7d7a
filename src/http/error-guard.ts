import type { Context } from 'koa';
import { Logger } from '../logger';
import { sendBody } from '../rest/respond';

/**
 * The error guard: answers an error no part handled. One with a 4xx `status` (a Koa or body
 * parser error) answers that status and its message; any other is logged as an error and
 * answered 500 `internal error`, both in the plain `{errorCode: 1, message}` body
 * (docs/contract.md §1).
 */
export function answerUnhandled(ctx: Context, err: unknown, logger: Logger): void {
  const status = (err as { status?: number }).status;
  const expose = typeof status === 'number' && status >= 400 && status < 500;
  if (!expose) logger.error({ err }, 'unhandled error');
  sendBody(ctx, expose ? status : 500, {
    errorCode: 1,
    message: expose ? (err as Error).message : 'internal error',
  });
}
