import {
  BadUserInputError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RequestShapeError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthenticatedError,
  UnprocessableError,
  invalidField,
} from '../../src/errors';
import { createLogger } from '../../src/logger';
import { statusOf, toFailure } from '../../src/rest/failure';

/**
 * Domain errors carry no HTTP status: the REST edge derives the legacy one from
 * the error's code and the path's error style.
 */
describe('REST status of a domain error (src/rest/failure.ts)', () => {
  it('maps each code to its legacy status on every path', () => {
    for (const style of ['plain', 'oauth', 'sqs', 'oauth2'] as const) {
      expect(statusOf(new UnauthenticatedError(), style)).toBe(401);
      expect(statusOf(new ForbiddenError('no'), style)).toBe(403);
      expect(statusOf(new NotFoundError('no'), style)).toBe(404);
      expect(statusOf(new ConflictError('no'), style)).toBe(409);
      expect(statusOf(new UnprocessableError('no'), style)).toBe(422);
      expect(statusOf(new TooManyRequestsError(3), style)).toBe(429);
      expect(statusOf(new ServiceUnavailableError('timeout'), style)).toBe(503);
      expect(statusOf(new RequestShapeError('x must be a string', []), style)).toBe(400);
    }
  });

  it('answers a value that breaks a rule 412 on the quota-sharing paths only', () => {
    const invalid = invalidField('quota', 'must be an integer');
    expect(statusOf(invalid, 'sqs')).toBe(412);
    expect(statusOf(invalid, 'plain')).toBe(400);
    expect(statusOf(new BadUserInputError('bad', []), 'oauth')).toBe(400);
  });

  it('classifies what a row threw with the status of its path', () => {
    const logger = createLogger('silent');
    expect(toFailure(invalidField('page', 'must be an integer from 0'), logger, 'sqs').status).toBe(412);
    expect(toFailure(new RequestShapeError('tenant header is required', []), logger, 'sqs').status).toBe(400);
    expect(toFailure(new Error('boom'), logger, 'sqs')).toEqual({ status: 500, message: 'internal error' });
  });
});
