import 'reflect-metadata';
import { Kind } from 'graphql';
import { DecimalScalar, MsisdnScalar } from '../../src/graphql/scalars';
import { Money } from '../../src/lib/money';
import { globalId, parseGlobalId, registerNode } from '../../src/graphql/node';

describe('MSISDN scalar', () => {
  it('coerces an input to the canonical digits and serializes them', () => {
    expect(MsisdnScalar.parseValue('+353871234567')).toBe('353871234567');
    expect(MsisdnScalar.parseLiteral({ kind: Kind.STRING, value: '12345' })).toBe('12345');
    expect(MsisdnScalar.serialize('+353871234567')).toBe('353871234567');
  });

  it('rejects what is not an MSISDN before any resolver', () => {
    for (const bad of ['1234', '1234567890123456', '+', '35387x', ' 353871234567', 353871234567, null])
      expect(() => MsisdnScalar.parseValue(bad)).toThrow(/MSISDN must be an MSISDN/);
    expect(() => MsisdnScalar.parseLiteral({ kind: Kind.INT, value: '353871234567' })).toThrow(
      /must be given as a string/,
    );
  });
});

describe('Decimal scalar', () => {
  it('parses exact decimals into Money and prints them back', () => {
    const m = DecimalScalar.parseValue('12.345678') as Money;
    expect(m).toBeInstanceOf(Money);
    expect(m.micros).toBe(12_345_678n);
    expect(DecimalScalar.serialize(m)).toBe('12.345678');
    expect(DecimalScalar.serialize('3')).toBe('3.00');
    expect((DecimalScalar.parseValue('-0.5') as Money).micros).toBe(-500_000n);
  });

  it('refuses floats, exponents and more than 6 fractional digits', () => {
    for (const bad of [1.5, '1e3', '0.1234567', '1,00', '', ' 1'])
      expect(() => DecimalScalar.parseValue(bad)).toThrow();
    expect(() => DecimalScalar.parseLiteral({ kind: Kind.FLOAT, value: '1.5' })).toThrow(/as a string/);
  });
});

describe('global ids', () => {
  beforeAll(() => registerNode('UnitThing', { permissions: [], resolve: async () => null }));

  it('decodes a typed id of a registered type and nothing else', () => {
    expect(parseGlobalId(globalId('UnitThing', '42:x'))).toEqual({ typename: 'UnitThing', key: '42:x' });
    expect(parseGlobalId(globalId('Unregistered', '1'))).toBeNull();
    expect(parseGlobalId('not an id!')).toBeNull();
    expect(parseGlobalId('')).toBeNull();
  });

  it('refuses to register a type twice', () => {
    expect(() => registerNode('UnitThing', { permissions: [], resolve: async () => null })).toThrow(/twice/);
  });
});
