import { Money, MoneyFormatError } from '../../src/lib/money';

describe('Money (exact decimal, CONTRACT §1)', () => {
  it('parses plain decimals exactly and formats with 2-6 fractional digits', () => {
    expect(Money.parse('10').toString()).toBe('10.00');
    expect(Money.parse('0.1').add(Money.parse('0.2')).toString()).toBe('0.30');
    expect(Money.parse('0.000001').micros).toBe(1n);
    expect(Money.parse('1.125').toString()).toBe('1.125');
    expect(Money.parse('9007199254.740991').micros).toBe(9007199254740991n);
    expect(Money.parse('-3.5', { allowNegative: true }).toString()).toBe('-3.50');
  });

  it.each([
    '',
    '1.',
    '.5',
    '1.1234567',
    '1e3',
    '+1',
    '-1',
    ' 1',
    '1,00',
    'NaN',
    '0x10',
    '9007199254.740992',
    '99999999999999999',
  ])('rejects %j', (s) => {
    expect(() => Money.parse(s)).toThrow(MoneyFormatError);
  });

  it('compares and subtracts without floating point', () => {
    const a = Money.parse('100.10');
    const b = Money.parse('0.10');
    expect(a.sub(b).toString()).toBe('100.00');
    expect(b.cmp(a)).toBe(-1);
    expect(a.sub(a).isZero()).toBe(true);
    expect(b.sub(a).isNegative()).toBe(true);
  });

  it('reads driver values exactly and refuses unsafe numbers', () => {
    expect(Money.fromMicros('1500000').toString()).toBe('1.50');
    expect(Money.fromMicros(1500000).toDb()).toBe(1500000);
    expect(() => Money.fromMicros(2 ** 60)).toThrow(MoneyFormatError);
    expect(() => Money.fromMicros(1.5)).toThrow(MoneyFormatError);
  });
});
