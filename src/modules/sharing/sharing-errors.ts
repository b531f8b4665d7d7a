import { ConflictError, NotFoundError, UnprocessableError, invalidField } from '../../errors';
import { SqsCode, SqsCodeValue } from './error-codes';

/** The DomainErrors of the quota-sharing services, with their SQS errorCodes (CONTRACT §5). */
export const sqsError = {
  notFound: (code: SqsCodeValue, message: string) => new NotFoundError(message, { errorCode: code }),
  conflict: (code: SqsCodeValue, message: string) => new ConflictError(message, { errorCode: code }),
  unprocessable: (code: SqsCodeValue, message: string) =>
    new UnprocessableError(message, { errorCode: code }),
  invalid: invalidField,
  groupNotFound: (id: string) =>
    new NotFoundError(`group ${id} not found`, { errorCode: SqsCode.GROUP_NOT_FOUND }),
  recurringNotFound: (id: string) =>
    new NotFoundError(`recurring donation ${id} not found`, { errorCode: SqsCode.GENERAL }),
};
