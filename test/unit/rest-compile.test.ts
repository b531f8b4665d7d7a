import { execute, parse } from 'graphql';
import { GatewayContext } from '../../src/graphql/context';
import { gatewaySchema } from '../../src/graphql/schema';
import { compileRoutes } from '../../src/rest/router';
import { ROUTES } from '../../src/rest/routes';

/** REST rows are validated at start-up and compiled on their first request. */
describe('compileRoutes', () => {
  it('validates every row now, compiles none until its first run, then answers as execute does', async () => {
    const schema = await gatewaySchema();
    const rows = compileRoutes(ROUTES, schema);
    expect(rows.map((r) => r.engine())).toEqual(ROUTES.map(() => 'pending'));
    const issue = rows.find((r) => r.route.path === '/token' && r.route.method === 'POST')!;
    // No credentials: the resolver's permission check refuses, with no database needed.
    const context = { client: null, auth: { status: 'missing' } } as unknown as GatewayContext;
    const variables = { grantType: 'CLIENT_CREDENTIALS', clientId: '353871234567' };
    const jit = await issue.run(context, variables);
    expect(issue.engine()).toBe('jit');
    const interpreted = await execute({
      schema,
      document: parse(issue.route.document),
      contextValue: context,
      variableValues: variables,
    });
    expect(JSON.parse(JSON.stringify(jit))).toEqual(JSON.parse(JSON.stringify(interpreted)));
    expect(jit.errors?.[0].message).toBe('authentication required');
    // The other rows are still not compiled.
    expect(rows.filter((r) => r.engine() !== 'pending')).toHaveLength(1);
  });
});
