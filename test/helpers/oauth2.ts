import { Permission } from '../../src/auth/permissions';
import { Dataset } from '../../src/dataset/dataset.schema';
import { baseDataset } from './fixtures';

/** Secret of the `edge@acme` client: characters that RFC 6749 §2.3.1 Basic credentials must form-encode. */
export const EDGE_SECRET = 'p@ss word+1%:x';

/** The base fixture plus a gateway that may only introspect and a client whose secret needs form encoding. */
export function oauth2Dataset(): Dataset {
  const d = baseDataset();
  d.clients = [
    ...(d.clients ?? []),
    {
      tenant: 'acme',
      username: 'gateway',
      password: 'gateway-password',
      permissions: [Permission.TOKEN_INTROSPECT],
      enabled: true,
    },
    {
      tenant: 'acme',
      username: 'edge@acme',
      password: EDGE_SECRET,
      permissions: [Permission.TOKEN_ISSUE, Permission.TOKEN_INTROSPECT],
      enabled: true,
    },
  ];
  return d;
}
