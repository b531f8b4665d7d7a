/* global URL */
// Runs openid-client v6 as an integrator would, against a running gateway, and prints what it saw
// as one JSON line. openid-client v6 is ESM-only and Jest runs CommonJS here, so the e2e test
// (oauth2-clients.test.ts) starts this script in a child `node` process.
// Usage: node openid-client.mjs <issuer> <client_secret_basic|client_secret_post> <client id> <secret> <msisdn>
import * as client from 'openid-client';

const [issuer, method, clientId, secret, msisdn] = process.argv.slice(2);
const auth =
  method === 'client_secret_post' ? client.ClientSecretPost(secret) : client.ClientSecretBasic(secret);

try {
  // The issuer is plain http in tests: allowInsecureRequests is openid-client's documented opt-in.
  // algorithm 'oauth2' discovers from /.well-known/oauth-authorization-server (RFC 8414).
  const config = await client.discovery(new URL(issuer), clientId, undefined, auth, {
    execute: [client.allowInsecureRequests],
    algorithm: 'oauth2',
  });
  const tokens = await client.clientCredentialsGrant(config, { msisdn });
  const active = await client.tokenIntrospection(config, tokens.access_token);
  await client.tokenRevocation(config, tokens.access_token);
  const revoked = await client.tokenIntrospection(config, tokens.access_token);
  const metadata = config.serverMetadata();
  console.log(JSON.stringify({ ok: true, metadata, tokens: { ...tokens }, active, revoked }));
} catch (err) {
  // A 401 carrying `www-authenticate` (RFC 6749 §5.2 requires it after Basic authentication)
  // surfaces as WWWAuthenticateChallengeError; its response still holds the RFC error body.
  const body = err.response && !err.response.bodyUsed ? await err.response.json().catch(() => null) : null;
  console.log(
    JSON.stringify({
      ok: false,
      name: err.name,
      status: err.status,
      error: err.error ?? body?.error,
      challenge: err.response?.headers.get('www-authenticate'),
    }),
  );
}
