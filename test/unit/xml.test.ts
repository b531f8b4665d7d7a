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
