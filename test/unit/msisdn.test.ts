import { isMsisdn, normalizeMsisdn } from '../../src/lib/msisdn';

describe('MSISDN rules (CONTRACT §1)', () => {
  it.each([
    ['353871234567', '353871234567'],
    ['+353871234567', '353871234567'],
    ['12345', '12345'],
    ['123456789012345', '123456789012345'],
  ])('%s is canonicalised to %s', (input, out) => {
    expect(normalizeMsisdn(input)).toBe(out);
  });

  it.each([
    '1234',
    '1234567890123456',
    '++353871234567',
    '35387 1234567',
    '3538712345a7',
    '',
    '+',
    ' 353871234567',
    '353871234567\n',
    '٣٥٣٨٧١٢٣٤٥',
  ])('rejects %j', (input) => {
    expect(normalizeMsisdn(input)).toBeNull();
    expect(isMsisdn(input)).toBe(false);
  });

  it.each([353871234567, null, undefined, {}, ['353871234567']])('rejects the non-string %j', (v) => {
    expect(normalizeMsisdn(v)).toBeNull();
  });
});
