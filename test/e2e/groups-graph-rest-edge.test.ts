import { DONOR, R, useSharingApp } from '../helpers/sharing';

/**
 * The group operations' inputs are typed (MSISDN, SafeInt, non-null), so the legacy
 * REST rows answer missing and malformed fields themselves, at the edge. These are the legacy
 * answers, status and body, byte for byte (the same assertions pass on the code before the
 * change), in the order the service used to check them.
 */
describe('group REST rows answer malformed bodies and paths with the legacy answers', () => {
  const t = useSharingApp();
  const MSISDN = 'must be an MSISDN: optional + then 5-15 digits';
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await t.sqs.call(method, path, body);
    return [res.status, res.text];
  };
  const errors = (...e: [string, string][]) =>
    JSON.stringify({ errors: e.map(([field, description]) => ({ field, description })) });
  const group = async () => (await t.sqs.createGroup({ ownerId: DONOR, name: 'Edge' })).json().id as string;

  it('POST /sqs/api/groups: every missing or invalid field listed; wrong JSON types 400', async () => {
    expect(await call('POST', '/sqs/api/groups', {})).toEqual([
      412,
      errors(['ownerId', 'is required'], ['name', 'is required']),
    ]);
    expect(await call('POST', '/sqs/api/groups', { ownerId: 'x', name: ' ', quotaType: 'half' })).toEqual([
      412,
      errors(
        ['ownerId', MSISDN],
        ['name', 'must be 1-128 characters, not blank'],
        ['quotaType', 'must be amount or share'],
      ),
    ]);
    expect(await call('POST', '/sqs/api/groups', { ownerId: 7, name: null })).toEqual([
      400,
      JSON.stringify({ errorCode: 1, message: 'invalid group: ownerId must be a JSON string' }),
    ]);
  });

  it('GET /sqs/api/groups: page first, then a filter, then each MSISDN', async () => {
    expect(await call('GET', '/sqs/api/groups?ownerId=x&page=y')).toEqual([
      412,
      errors(['page', 'must be an integer from 0']),
    ]);
    expect(await call('GET', '/sqs/api/groups')).toEqual([
      412,
      errors(['ownerId', 'give ownerId or memberId']),
    ]);
    expect(await call('GET', '/sqs/api/groups?ownerId=x&memberId=y')).toEqual([
      412,
      errors(['ownerId', MSISDN]),
    ]);
    expect(await call('GET', `/sqs/api/groups?ownerId=${DONOR}&memberId=y`)).toEqual([
      412,
      errors(['memberId', MSISDN]),
    ]);
  });

  it('member rows: the body first, then the path memberId, before the group is read', async () => {
    const id = await group();
    expect(await call('POST', `/sqs/api/groups/nope/members`, { quota: -1 })).toEqual([
      412,
      errors(['memberId', 'is required'], ['quota', 'must not be negative']),
    ]);
    expect(await call('PUT', `/sqs/api/groups/nope/members/abc`, { memberId: 'x' })).toEqual([
      412,
      errors(['memberId', MSISDN], ['quota', 'is required']),
    ]);
    expect(await call('PUT', `/sqs/api/groups/nope/members/abc`, { memberId: R(0), quota: 1 })).toEqual([
      412,
      errors(['memberId', MSISDN]),
    ]);
    expect(await call('PUT', `/sqs/api/groups/${id}/members/${R(1)}`, { memberId: R(0), quota: 1 })).toEqual([
      412,
      errors(['memberId', 'must be the memberId of the path']),
    ]);
    expect(await call('DELETE', `/sqs/api/groups/nope/members/abc`)).toEqual([
      412,
      errors(['memberId', MSISDN]),
    ]);
    expect(await call('DELETE', `/sqs/api/groups/nope/members/${R(0)}`)).toEqual([
      404,
      JSON.stringify({ message: 'group nope not found', errorCode: 5 }),
    ]);
  });

  it('PUT /sqs/api/groups/<id>: every missing field, then the id of the path, then the group', async () => {
    expect(await call('PUT', '/sqs/api/groups/nope', {})).toEqual([
      412,
      errors(['id', 'is required'], ['ownerId', 'is required'], ['name', 'is required']),
    ]);
    expect(await call('PUT', '/sqs/api/groups/nope', { id: 'other', ownerId: DONOR, name: 'n' })).toEqual([
      412,
      errors(['id', 'must be the group id of the path']),
    ]);
    expect(
      await call('PUT', '/sqs/api/groups/nope', { id: 'nope', ownerId: `+${DONOR}`, name: 'n' }),
    ).toEqual([404, JSON.stringify({ message: 'group nope not found', errorCode: 5 })]);
  });

  it('bulk rows: the list before the group; each MSISDN of a delete before the group', async () => {
    for (const path of [
      '/sqs/api/groups/nope/members/_bulk/add',
      '/sqs/api/groups/nope/members/_bulk/delete',
    ]) {
      expect(await call('PUT', path, {})).toEqual([412, errors(['members', 'is required'])]);
      expect(await call('PUT', path, { members: [] })).toEqual([
        412,
        errors(['members', 'must list 1-100 entries']),
      ]);
    }
    expect(await call('PUT', '/sqs/api/groups/nope/members/_bulk/delete', { members: [R(0), null] })).toEqual(
      [412, errors(['members[1]', MSISDN])],
    );
    const id = await group();
    expect(
      await call('PUT', `/sqs/api/groups/${id}/members/_bulk/add`, {
        members: [{ memberId: R(0), quota: 1 }, null],
      }),
    ).toEqual([412, errors(['members[1].memberId', 'is required'])]);
  });
});
