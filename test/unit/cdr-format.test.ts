import { csvField, csvRecord } from '../../src/lib/csv';
import { LAYOUTS, cdrDate, cdrDateYmd, cdrTime } from '../../src/modules/cdrs/cdr.layouts';
import { parseTimeBound } from '../../src/modules/cdrs/cdr.service';

describe('CSV escaping (RFC 4180)', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\r', '"cr\r"'],
    ['', ''],
  ])('%j → %j', (value, expected) => expect(csvField(value)).toBe(expected));

  it('writes null as an empty field, numbers as digits, records with CRLF', () => {
    expect(csvRecord(['x', null, 0, -1, 'y,z'])).toBe('x,,0,-1,"y,z"\r\n');
  });
});

describe('published CDR formats', () => {
  it('dates DD/MM/YYYY and times hh:mm:ss (24-hour), UTC', () => {
    const ms = Date.UTC(2026, 0, 5, 21, 7, 9, 999);
    expect(cdrDate(ms)).toBe('05/01/2026');
    expect(cdrTime(ms)).toBe('21:07:09');
  });

  it('every SQS and charging layout starts with the eight common fields and has unique names', () => {
    for (const [kind, layout] of Object.entries(LAYOUTS)) {
      if (kind === 'token') continue; // the token web service layout has its own order (below)
      expect(layout.slice(1, 8).map((f) => f.name)).toEqual([
        'service ID',
        'transaction type',
        'tenant ID',
        'cdr generation date',
        'cdr generation time',
        'actor',
        'actor cause',
      ]);
      expect(new Set(layout.map((f) => f.key)).size).toBe(layout.length);
    }
    expect(LAYOUTS.donation).toHaveLength(31);
    expect(LAYOUTS.group).toHaveLength(13);
    expect(LAYOUTS.recurringDonation).toHaveLength(13);
  });

  it('the token CDR: published fields 1-7 (date YYYY/MM/DD), then tenant ID and actor', () => {
    expect(LAYOUTS.token.map((f) => f.name)).toEqual([
      'msisdn',
      'service ID',
      'transaction type',
      'CDR generation date',
      'CDR generation time',
      'token',
      'transaction status',
      'tenant ID',
      'actor',
    ]);
    expect(cdrDateYmd(Date.UTC(2026, 0, 5, 21, 7, 9))).toBe('2026/01/05');
  });

  it('time bounds are ISO-8601 dates or date-times with a zone', () => {
    expect(parseTimeBound('2026-11-24', 'from')).toBe(Date.UTC(2026, 10, 24));
    expect(parseTimeBound('2026-11-24T10:00:00+01:00', 'from')).toBe(Date.UTC(2026, 10, 24, 9));
    for (const bad of ['2026-11-24T10:00:00', '24/11/2026', '1700000000', ''])
      expect(() => parseTimeBound(bad, 'from')).toThrow('from is not an ISO-8601 time');
  });
});
