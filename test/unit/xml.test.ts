import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { toXml } from '../../src/rest/xml';

const parser = new XMLParser({ parseTagValue: false, trimValues: false });
const roundTrip = (body: Record<string, unknown>) => parser.parse(toXml(body)).response;

describe('toXml (CONTRACT §1 XML mapping)', () => {
  it('writes the declaration, a <response> root and children in key order', () => {
    expect(toXml({ b: 'x', a: 1 })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><response><b>x</b><a>1</a></response>',
    );
  });

  it('repeats an element per array item, empties null, writes booleans and plain decimals', () => {
    const xml = toXml({
      list: [{ id: 1 }, { id: 2 }],
      none: null,
      yes: true,
      no: false,
      big: 1e21,
      small: 0.000001,
    });
    expect(xml).toContain('<list><id>1</id></list><list><id>2</id></list>');
    expect(xml).toContain('<none></none>');
    expect(xml).toContain('<yes>true</yes><no>false</no>');
    expect(xml).toContain('<big>1000000000000000000000</big>');
    expect(xml).toContain('<small>0.000001</small>');
  });

  it('writes nothing for an empty array and nests objects', () => {
    expect(toXml({ items: [], links: { self: { href: 'http://x/a' } } })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><response><links><self><href>http://x/a</href></self></links></response>',
    );
  });

  const hostile = [
    '&amp;',
    '&lt;tag&gt;',
    '<script>alert(1)</script>',
    ']]>',
    '<![CDATA[x]]>',
    '"double" \'single\'',
    'Orange Fran\u00e7e \u4e2d\u56fd\u79fb\u52a8 \u041c\u0422\u0421 \ud83d\udcf1',
    '&#0; &#x1F; &unknown;',
    '<?xml version="1.0"?>',
    'a\tb\nc\rd',
  ];
  it.each(hostile)('round-trips %j through a real XML parser', (s) => {
    const xml = toXml({ value: s });
    expect(XMLValidator.validate(xml)).toBe(true);
    const back = String(roundTrip({ value: s }).value);
    // The parser normalises CR to LF as XML requires; everything else comes back verbatim.
    expect(back.replace(/\r/g, '\n')).toBe(s.replace(/\r/g, '\n'));
  });

  it('stays well-formed with characters XML 1.0 forbids, replacing them with U+FFFD', () => {
    const s = 'a\u0000b\u0001c\u001fd\ufffe\uffff\ud800e\udc00';
    const xml = toXml({ value: s });
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(String(roundTrip({ value: s }).value)).toBe('a\ufffdb\ufffdc\ufffdd\ufffd\ufffd\ufffde\ufffd');
  });
});

describe('toXml of a body of scalars only (written without the XMLBuilder)', () => {
  // Nested one level, the same values go through the XMLBuilder: the children must be the same bytes.
  const viaBuilder = (body: Record<string, unknown>) => {
    const xml = toXml({ wrapped: body });
    const inner = xml.replace(/^.*?<response><wrapped>/, '').replace(/<\/wrapped><\/response>$/, '');
    return `<?xml version="1.0" encoding="UTF-8"?><response>${inner}</response>`;
  };
  const bodies: Array<Record<string, unknown>> = [
    {},
    { active: false },
    { active: true, client_id: '353871234567', expiry: 1767225600 },
    { returnCode: 0 },
    { errorCode: 1, message: 'tenant header does not name your tenant' },
    { none: null, missing: undefined, empty: '', zero: 0, neg: -1.5, big: 1e21, small: 1e-7 },
    { nan: Number.NaN, inf: Number.POSITIVE_INFINITY, n: 10n, t: true },
    { error: 'invalid_request', error_description: '[token cannot be null]' },
    ...hostileStrings().map((s) => ({ value: s, 'a.b_c-d': s })),
  ];
  it.each(bodies.map((b) => [JSON.stringify(b, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)), b]))(
    '%s is the builder’s bytes',
    (_, body) => {
      expect(toXml(body as Record<string, unknown>)).toBe(viaBuilder(body as Record<string, unknown>));
    },
  );

  it('still goes through the builder for nested values and unusual names', () => {
    expect(toXml({ a: { b: 1 } })).toContain('<a><b>1</b></a>');
    expect(toXml({ list: [1, 2] })).toContain('<list>1</list><list>2</list>');
  });
});

function hostileStrings(): string[] {
  return [
    '&amp; <b> "q" \'s\' ]]> &#0;',
    'a\u0000b\u0001c\u001fd\ufffe\uffff\ud800e\udc00',
    'Orange Fran\u00e7e \u4e2d\u56fd\u79fb\u52a8 \ud83d\udcf1',
    'a\tb\nc\rd',
  ];
}
