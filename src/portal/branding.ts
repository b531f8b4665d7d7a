/**
 * What the portal page needs of a tenant's branding, and the colours derived from it. The shape is
 * `PortalBranding` of src/modules/portal/portal.service.ts (dataset `tenants[].portal`, with the
 * service's defaults), repeated here so the page depends only on what it reads.
 */
export interface PageBranding {
  /** The name shown in the page's header and title. */
  displayName: string;
  /** `#rrggbb`, the header's and buttons' colour. */
  primaryColor: string;
  /** A same-origin path (`/…`) or a `data:image/…` URL; any other URL is not shown (no third-party request). */
  logoUrl: string | null;
}

/** The branding of a page with no tenant (the "no longer valid" page) and the colour when a tenant's is not `#rrggbb`. */
export const NEUTRAL_BRANDING: PageBranding = { displayName: '', primaryColor: '#1f4e8c', logoUrl: null };

const HEX_COLOUR = /^#?([0-9a-fA-F]{6})$/;

/** `#rrggbb` in lower case when `value` is six hex digits (with or without `#`), else null. */
export function normaliseColour(value: string | null | undefined): string | null {
  const m = HEX_COLOUR.exec(value ?? '');
  return m ? `#${m[1].toLowerCase()}` : null;
}

/** Relative luminance (WCAG 2) of a `#rrggbb` colour, 0 (black) to 1 (white). */
export function luminance(colour: string): number {
  const channel = (i: number): number => {
    const c = parseInt(colour.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The text colour on a `#rrggbb` background: black or white, whichever contrasts more. */
export function textColourOn(background: string): '#000000' | '#ffffff' {
  return contrast(background, '#000000') >= contrast(background, '#ffffff') ? '#000000' : '#ffffff';
}

/** The logo URL when it is safe to show under the portal's CSP (same-origin path or a data: image), else null. */
export function safeLogoUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  if (/^\/(?!\/)[^\s"'<>\\]*$/.test(url)) return url;
  if (/^data:image\/(png|gif|jpeg|webp|svg\+xml)[;,][^\s"'<>]*$/.test(url)) return url;
  return null;
}
