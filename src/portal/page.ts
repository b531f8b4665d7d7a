import { NEUTRAL_BRANDING, PageBranding, normaliseColour, safeLogoUrl, textColourOn } from './branding';
import { MESSAGES, MessageKey, PORTAL_LANGUAGES, PortalLanguage, translate } from './i18n';

/** Where the portal's pages are served: `<PORTAL_PATH>/<access_token>`. */
export const PORTAL_PATH = '/portal';
/** Where the portal's static files are served. */
export const PORTAL_ASSETS_PATH = `${PORTAL_PATH}/assets`;
/** The generated stylesheet holding a tenant's colours (`?primary=rrggbb`). */
export const THEME_STYLESHEET = 'theme.css';

/** What a page links to: the versions (content hashes) of the static files, for cache busting. */
export interface AssetVersions {
  'portal.js': string;
  'portal.css': string;
}

/** Escapes text for HTML content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON for a `<script type="application/json">` data block: `<`, `>` and `&` escaped so no `</script>` can end it. */
function jsonBlock(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The theme stylesheet's URL for a primary colour (`#rrggbb`). */
export function themeUrl(primaryColor: string): string {
  const colour = normaliseColour(primaryColor) ?? NEUTRAL_BRANDING.primaryColor;
  return `${PORTAL_ASSETS_PATH}/${THEME_STYLESHEET}?primary=${colour.slice(1)}`;
}

/**
 * The theme stylesheet's text for `?primary=` (six hex digits; another value gives the neutral
 * colour): `--primary` and the text colour that contrasts with it, `--on-primary`.
 */
export function themeCss(primary: unknown): string {
  const colour =
    normaliseColour(typeof primary === 'string' ? primary : null) ?? NEUTRAL_BRANDING.primaryColor;
  return `:root{--primary:${colour};--on-primary:${textColourOn(colour)}}\n`;
}

/** The language switcher: one link per language, re-rendering the same page with `?lang=`. */
function switcher(lang: PortalLanguage): string {
  const links = PORTAL_LANGUAGES.map((l) => {
    const current = l === lang ? ' aria-current="true"' : '';
    return `<li><a href="?lang=${l}" hreflang="${l}" lang="${l}"${current}>${escapeHtml(MESSAGES[l].languageName)}</a></li>`;
  }).join('');
  return `<nav class="languages" aria-label="${escapeHtml(translate(lang, 'languageLabel'))}"><ul>${links}</ul></nav>`;
}

/** The `<head>` and the branded header shared by both pages; `script` adds the page's data block and script. */
function shell(
  lang: PortalLanguage,
  branding: PageBranding,
  versions: AssetVersions,
  title: string,
  script: string,
): string {
  const name = escapeHtml(branding.displayName);
  const logo = safeLogoUrl(branding.logoUrl);
  const logoImg = logo ? `<img class="logo" src="${escapeHtml(logo)}" alt="" />` : '';
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="referrer" content="no-referrer" />
<link rel="icon" href="data:," />
<title>${escapeHtml(title)}${name ? ` · ${name}` : ''}</title>
<link rel="stylesheet" href="${PORTAL_ASSETS_PATH}/portal.css?v=${versions['portal.css']}" />
<link rel="stylesheet" href="${escapeHtml(themeUrl(branding.primaryColor))}" />
${script}</head>
<body>
<header class="brand">
<div class="brand-name">${logoImg}<span>${name}</span></div>
${switcher(lang)}
</header>
`;
}

/**
 * The subscriber's portal page for a valid link: the branded shell in `lang`, with the page's
 * texts in a JSON data block (`#portal-config`: `lang` and `messages`) that /portal/assets/portal.js
 * reads before it fills the page from GraphQL `me`. No inline script and no inline style.
 */
export function renderPortalPage(
  lang: PortalLanguage,
  branding: PageBranding,
  versions: AssetVersions,
): string {
  const config = jsonBlock({ lang, messages: MESSAGES[lang] });
  const script =
    `<script type="application/json" id="portal-config">${config}</script>\n` +
    `<script src="${PORTAL_ASSETS_PATH}/portal.js?v=${versions['portal.js']}" defer></script>\n`;
  const t = (key: Parameters<typeof translate>[1]) => escapeHtml(translate(lang, key));
  return `${shell(lang, branding, versions, translate(lang, 'pageTitle'), script)}<main id="main">
<h1>${t('greeting')}</h1>
<p id="notice" class="notice" role="status" aria-live="polite">${t('loading')}</p>
<section id="account" class="account" aria-labelledby="account-heading" hidden>
<h2 id="account-heading" class="visually-hidden">${t('pageTitle')}</h2>
<dl>
<div><dt>${t('number')}</dt><dd id="msisdn"></dd></div>
<div><dt>${t('balance')}</dt><dd id="balance"></dd></div>
<div><dt>${t('status')}</dt><dd id="status"></dd></div>
</dl>
</section>
<section id="offers-section" aria-labelledby="offers-heading" hidden>
<h2 id="offers-heading">${t('offersHeading')}</h2>
<ul id="offers" class="cards"></ul>
</section>
<section id="plans-section" aria-labelledby="plans-heading" hidden>
<h2 id="plans-heading">${t('plansHeading')}</h2>
<ul id="plans" class="cards"></ul>
</section>
</main>
<footer><p>${t('poweredBy')}</p></footer>
</body>
</html>
`;
}

/**
 * A page that only says something (no script, neutral branding, nothing about any subscriber or
 * tenant): the branded shell in `lang`, `titleKey` as title and heading, then `body` (HTML).
 */
function messagePage(
  lang: PortalLanguage,
  versions: AssetVersions,
  titleKey: MessageKey,
  body: string,
): string {
  return `${shell(lang, NEUTRAL_BRANDING, versions, translate(lang, titleKey), '')}<main id="main">
<h1>${escapeHtml(translate(lang, titleKey))}</h1>
${body}</main>
</body>
</html>
`;
}

/**
 * The page of an expired, revoked or unknown link (HTTP 401): "this link is no longer valid" in
 * `lang`, neutral branding, no script and nothing about any subscriber or tenant.
 */
export function renderInvalidLinkPage(lang: PortalLanguage, versions: AssetVersions): string {
  return messagePage(
    lang,
    versions,
    'invalidTitle',
    `<p>${escapeHtml(translate(lang, 'invalidBody'))}</p>\n`,
  );
}

/**
 * The page of a link the gateway cannot open right now (HTTP 503: the database down or too slow,
 * the request past its deadline, or the gateway overloaded): "the service is busy, nothing was
 * charged, try again" in `lang`, with a link that loads the same address again; neutral
 * branding, no script, nothing about any subscriber or tenant.
 */
export function renderUnavailablePage(lang: PortalLanguage, versions: AssetVersions): string {
  const t = (key: MessageKey) => escapeHtml(translate(lang, key));
  return messagePage(
    lang,
    versions,
    'unavailableTitle',
    `<p>${t('unavailableBody')}</p>\n<p><a class="retry" href="">${t('retry')}</a></p>\n`,
  );
}
