import { ForbiddenError, RequestShapeError } from '../errors';
import { ApiClient } from './client.store';

/** The message of a `tenant` header (or graphql-ws `tenant` parameter) naming another tenant. */
export const TENANT_MISMATCH = 'tenant header does not name your tenant';

/**
 * The tenant-header rule (CONTRACT §2), in one place for the legacy REST rows, `/graphql` over
 * HTTP and graphql-ws connections alike: a client acts in its own tenant, so a `tenant` header
 * (a `tenant` connection parameter on WebSocket), when sent, must name the client's tenant;
 * `required` (the rating and SQS rows) makes a missing one an error too. `tenant` is the value
 * as sent, undefined when absent or empty.
 * @throws ForbiddenError (HTTP 403; WebSocket close 4403) when it names another tenant;
 *   RequestShapeError on `tenant` (REST 400) when `required` and absent.
 */
export function assertTenantHeader(
  tenant: string | undefined,
  client: Pick<ApiClient, 'tenantName'>,
  required = false,
): void {
  if (tenant === undefined) {
    if (required)
      throw new RequestShapeError('tenant header is required', [
        { field: 'tenant', description: 'required header' },
      ]);
    return;
  }
  if (tenant !== client.tenantName) throw new ForbiddenError(TENANT_MISMATCH);
}
