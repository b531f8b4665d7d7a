import path from 'node:path';
import { loadPortalAssets, portalAssetsDir } from '../../src/portal/assets';
import { contrast, normaliseColour, safeLogoUrl, textColourOn } from '../../src/portal/branding';
import { MESSAGES, PORTAL_LANGUAGES, chooseLanguage, translate } from '../../src/portal/i18n';
import { escapeHtml, themeCss } from '../../src/portal/page';
import { REDACTED, redactPortalPath } from '../../src/portal/redact';

describe('portal languages', () => {
  it('has every text in every language, with the same placeholders', () => {
    const keys = Object.keys(MESSAGES.en).sort();
    const placeholders = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();
    for (const lang of PORTAL_LANGUAGES) {
      expect(Object.keys(MESSAGES[lang]).sort()).toEqual(keys);
      for (const key of keys) {
        const text = MESSAGES[lang][key as keyof typeof MESSAGES.en];
        expect(text.trim()).not.toBe('');
        expect(placeholders(text)).toEqual(placeholders(MESSAGES.en[key as keyof typeof MESSAGES.en]));
      }
    }
  });

  it('translates every purchase error code', () => {
    for (const code of [
      'INSUFFICIENT_FUNDS',
      'SUBSCRIBER_INACTIVE',
      'OFFER_WITHDRAWN',
      'PLAN_LIMIT_REACHED',
      'IDEMPOTENCY_KEY_REUSED',
      'IDEMPOTENCY_KEY_IN_USE',
      'INVALID',
    ])
      for (const lang of PORTAL_LANGUAGES) expect(MESSAGES[lang]).toHaveProperty([`error.${code}`]);
  });

  it('chooses ?lang= first, then Accept-Language among en/es/pt, else English', () => {
    expect(chooseLanguage(undefined, undefined)).toBe('en');
    expect(chooseLanguage(undefined, 'es-MX,es;q=0.9,en;q=0.8')).toBe('es');
    expect(chooseLanguage(undefined, 'pt-BR')).toBe('pt');
    expect(chooseLanguage(undefined, 'fr, pt;q=0.5')).toBe('pt');
    expect(chooseLanguage(undefined, 'fr, de')).toBe('en');
    expect(chooseLanguage(undefined, 'en;q=0.1, es')).toBe('es');
    expect(chooseLanguage('es', 'pt')).toBe('es');
    expect(chooseLanguage('PT', 'es')).toBe('pt');
    expect(chooseLanguage('fr', 'es')).toBe('es');
    expect(chooseLanguage(['es', 'pt'], undefined)).toBe('en');
  });

  it('fills placeholders', () => {
    expect(translate('es', 'bought', { name: 'Roam 1GB' })).toBe('Roam 1GB ya está activo.');
    expect(translate('en', 'remaining', { remaining: '1 GB' })).toBe('1 GB left of {amount}');
  });
});

describe('redactPortalPath', () => {
  it('replaces the access token of a portal link, keeps other paths', () => {
    const token = 'AbC_-0123456789abcdefghijklmnopqrstuvwxyzAB';
    expect(redactPortalPath(`/portal/${token}`)).toBe(`/portal/${REDACTED}`);
    expect(redactPortalPath(`/portal/${token}/`)).toBe(`/portal/${REDACTED}/`);
    expect(redactPortalPath(`/portal/${token}?lang=es`)).toBe(`/portal/${REDACTED}`);
    expect(redactPortalPath('/portal/assets/portal.js?v=1')).toBe('/portal/assets/portal.js');
    expect(redactPortalPath('/graphql')).toBe('/graphql');
    expect(redactPortalPath('/crs-api/rating?x=1')).toBe('/crs-api/rating');
  });
});

describe('portal branding', () => {
  it('accepts only #rrggbb colours and picks a readable text colour', () => {
    expect(normaliseColour('#AABBCC')).toBe('#aabbcc');
    expect(normaliseColour('aabbcc')).toBe('#aabbcc');
    expect(normaliseColour('red')).toBeNull();
    expect(normaliseColour('#abc')).toBeNull();
    for (const c of ['#ffcc00', '#1f4e8c', '#000000', '#ffffff', '#e60000', '#00a0e0', '#777777'])
      expect(contrast(c, textColourOn(c))).toBeGreaterThanOrEqual(4.5);
    expect(themeCss('e60000')).toBe(':root{--primary:#e60000;--on-primary:#ffffff}\n');
  });

  it('shows a logo only from the gateway itself or a data: image', () => {
    expect(safeLogoUrl('/static/logo.png')).toBe('/static/logo.png');
    expect(safeLogoUrl('data:image/png;base64,AAAA')).toBe('data:image/png;base64,AAAA');
    expect(safeLogoUrl('https://cdn.example.com/logo.png')).toBeNull();
    expect(safeLogoUrl('//cdn.example.com/logo.png')).toBeNull();
    expect(safeLogoUrl('javascript:alert(1)')).toBeNull();
    expect(safeLogoUrl('/x" onerror="y')).toBeNull();
    expect(safeLogoUrl(null)).toBeNull();
  });

  it('escapes HTML', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  });
});

describe('portal static files', () => {
  it('are found in the source tree from ts-node, from dist/src/portal (tsc) and from dist (the bundle)', () => {
    const root = path.join(__dirname, '../..');
    const source = path.join(root, 'src/portal/assets');
    expect(portalAssetsDir(path.join(root, 'src/portal'))).toBe(source);
    expect(portalAssetsDir(path.join(root, 'dist/src/portal'))).toBe(source);
    expect(portalAssetsDir(path.join(root, 'dist'))).toBe(source);
    expect(() => portalAssetsDir('/')).toThrow(/not found/);
    const assets = loadPortalAssets(source);
    expect([...assets.keys()].sort()).toEqual(['portal.css', 'portal.js']);
    expect(assets.get('portal.js')!.version).toMatch(/^[0-9a-f]{16}$/);
  });
});
