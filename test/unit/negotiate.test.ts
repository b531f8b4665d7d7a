import { negotiateFormat } from '../../src/rest/negotiate';

describe('negotiateFormat (CONTRACT §1)', () => {
  it.each([
    [undefined, 'xml'],
    ['', 'xml'],
    ['*/*', 'xml'],
    ['application/*', 'xml'],
    ['application/xml', 'xml'],
    ['text/xml', 'xml'],
    ['text/html', 'xml'],
    ['image/png', 'xml'],
    ['application/json', 'json'],
    ['application/JSON', 'json'],
    ['APPLICATION/JSON', 'json'],
    ['application/json; charset=utf-8', 'json'],
    ['application/json, application/xml', 'json'],
    ['application/xml, application/json', 'xml'],
    ['application/json;q=0.5, application/xml;q=0.9', 'xml'],
    ['application/xml;q=0.1, application/json;q=0.8', 'json'],
    ['application/json, */*;q=0.1', 'json'],
    ['text/html, application/json;q=0.9', 'json'],
    ['application/json;q=0', 'xml'],
    ['garbage;;;,,', 'xml'],
  ])('accept %j → %s', (accept, expected) => {
    expect(negotiateFormat(accept as string | undefined)).toBe(expected);
  });
});
