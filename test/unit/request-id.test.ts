import { requestIdOf } from '../../src/lib/request-id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdOf (CONTRACT §1 x-request-id)', () => {
  it.each(['abc', 'A-z_0.9:x', 'x'.repeat(128)])('echoes a valid incoming id %s', (id) => {
    expect(requestIdOf(id)).toBe(id);
  });

  it.each([
    ['absent', ''],
    ['too long', 'x'.repeat(129)],
    ['with a space', 'a b'],
    ['with a slash', 'a/b'],
    ['with a newline', 'a\nb'],
    ['non-ASCII', 'é'],
  ])('generates a new UUID when the incoming id is %s', (_, id) => {
    const out = requestIdOf(id);
    expect(out).toMatch(UUID);
    expect(requestIdOf(id)).not.toBe(out);
  });
});
