import fs from 'node:fs';
import path from 'node:path';
import { Browser, BrowserContext, Page, chromium } from 'playwright-core';
import { Dataset } from '../../src/dataset/dataset.schema';
import { createLogger } from '../../src/logger';
import { TestApp, startTestApp } from '../helpers/app';
import { baseDataset } from '../helpers/fixtures';

/**
 * The captive portal end to end in a real browser (Debian's chromium driven by playwright-core,
 * never a browser download) over the whole gateway and its database: a subscriber opens the link
 * built from its access token, buys an offer with a double click (charged once, one plan), tries
 * an offer it cannot afford (a message, nothing charged), switches to Spanish and, once the token
 * is revoked, gets the 401 "no longer valid" page with no data; axe-core finds no serious or
 * critical accessibility violation on either page. Skipped, with the reason printed, only where
 * /usr/bin/chromium is missing (.ci/run installs it with apt-get when it can).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-gpu'];
/** Screenshots for a person to look at (var/ is ignored by git); PORTAL_SCREENSHOT=<file> also writes the docs' one. */
const SHOTS = path.join(__dirname, '../../var/test-screenshots');
const AXE = require.resolve('axe-core/axe.min.js');

const available = fs.existsSync(CHROMIUM);
if (!available)
  process.stdout.write(`portal browser test skipped: ${CHROMIUM} is missing (apt-get install chromium)\n`);
const describeBrowser = available ? describe : describe.skip;

const MSISDN = '353871234567';
/** What axe-core reports of one violated rule. */
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}
declare const axe: { run(): Promise<{ violations: AxeViolation[] }> };

/** The base fixture with the tenant's branding and three plan definitions, two of them on offer. */
function portalDataset(): Dataset {
  const ds = baseDataset();
  const acme = ds.tenants!.find((t) => t.name === 'acme')!;
  Object.assign(acme, { portal: { displayName: 'Acme Mobile', primaryColor: '#b00020' } });
  const plan = (name: string, unit: 'volume' | 'time', amount: number, price?: string) => ({
    tenant: 'acme',
    name,
    unitMeteringType: unit,
    unitAmount: amount,
    shareable: false,
    recurring: false,
    shareQuotaType: 'amount' as const,
    ...(price === undefined ? {} : { price }),
  });
  ds.planDefinitions = [
    plan('Roam 1GB', 'volume', 1_000_000_000, '4.99'),
    plan('Roam 100 min', 'time', 6000, '25.00'),
    plan('Back office', 'volume', 5_000_000, undefined),
  ] as Dataset['planDefinitions'];
  return ds;
}

/** The serious and critical violations axe-core finds on the page, as readable lines. */
async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol: the page's CSP (rightly) refuses an added <script>.
  await page.evaluate(fs.readFileSync(AXE, 'utf8'));
  const { violations } = await page.evaluate(() => axe.run());
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

describeBrowser('captive portal in chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let app: TestApp;
  let token: string;
  const written: string[] = [];
  const balanceMicros = async () =>
    BigInt((await app.tdb.db('subscribers').where({ msisdn: MSISDN }).first()).balance_micros);
  const planCount = async () =>
    Number((await app.tdb.db('subscriber_plans').where({ msisdn: MSISDN }).count({ n: '*' }))[0].n);

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    app = await startTestApp({
      dataset: portalDataset(),
      logger: createLogger('info', { write: (s: string) => written.push(s) }),
    });
    const issued = await app.request('POST', '/token', {
      as: 'portal',
      json: true,
      body: { grant_type: 'client_credentials', client_id: `+${MSISDN}` },
    });
    expect(issued.status).toBe(201);
    token = issued.json().access_token as string;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
    context = await browser.newContext({ locale: 'en-US', viewport: { width: 720, height: 640 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('opens the link, buys once on a double click, refuses what it cannot afford, speaks Spanish', async () => {
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused/i.test(m.text())) refused.push(m.text());
    });
    const res = await page.goto(`${app.url}/portal/${token}`);
    expect(res!.status()).toBe(200);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    await page.waitForSelector('#offers .offer');
    expect(await page.textContent('.brand-name')).toContain('Acme Mobile');
    expect(await page.textContent('#msisdn')).toMatch(/^•+4567$/);
    expect(await page.textContent('body')).not.toContain('3538712');
    expect(await page.textContent('#balance')).toBe('€10.00');
    const offers = await page.textContent('#offers');
    expect(offers).toContain('Roam 1GB');
    expect(offers).toContain('1 GB');
    expect(offers).toContain('€4.99');
    expect(offers).toContain('100 min');
    expect(offers).not.toContain('Back office');
    expect(await page.textContent('#plans')).toContain('You have no plans yet.');
    expect(await seriousViolations(page)).toEqual([]);

    // A double click: one purchase, one charge, one plan.
    const before = await balanceMicros();
    const buy = page.locator('#offers .offer', { hasText: 'Roam 1GB' }).locator('button.buy');
    await buy.dblclick();
    await page.waitForSelector('#plans .plan');
    await page.waitForSelector('#notice.notice-success');
    expect(await page.textContent('#notice')).toBe('Roam 1GB is now active.');
    expect(await balanceMicros()).toBe(before - 4_990_000n);
    expect(await planCount()).toBe(1);
    expect(await page.textContent('#balance')).toBe('€5.01');
    expect(await page.textContent('#plans')).toContain('1 GB left of 1 GB');
    await page.screenshot({ path: path.join(SHOTS, 'portal.png'), fullPage: true });
    if (process.env.PORTAL_SCREENSHOT)
      await page.screenshot({ path: process.env.PORTAL_SCREENSHOT, fullPage: true });

    // An offer above the balance: a message, nothing charged, no plan.
    await page.locator('#offers .offer', { hasText: 'Roam 100 min' }).locator('button.buy').click();
    await page.waitForSelector('#notice.notice-error');
    expect(await page.textContent('#notice')).toBe(
      'Your balance is too low for this plan. Nothing was charged.',
    );
    expect(await balanceMicros()).toBe(before - 4_990_000n);
    expect(await planCount()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    // The switcher re-renders the page in Spanish.
    await page.click('nav.languages a[hreflang="es"]');
    await page.waitForFunction(() => document.documentElement.lang === 'es');
    await page.waitForSelector('#offers .offer');
    expect(await page.textContent('h1')).toBe('Compra un plan mientras estás en itinerancia');
    expect(await page.textContent('#offers button.buy')).toBe('Comprar');
    expect(await page.textContent('#balance')).toBe('5,01\u00a0€');
    expect(await page.textContent('#plans')).toContain('Quedan 1 GB de 1 GB');
    expect(await seriousViolations(page)).toEqual([]);
    expect(refused).toEqual([]);
    await page.close();
  }, 120_000);

  it('answers a revoked link 401 "no longer valid" with no subscriber data', async () => {
    const revoked = await app.request('POST', '/graphql', {
      as: 'admin',
      body: {
        query: 'mutation($t: String!) { revokeToken(token: $t) { revoked } }',
        variables: { t: token },
      },
    });
    expect(revoked.status).toBe(200);
    expect(revoked.json()).toEqual({ data: { revokeToken: { revoked: true } } });
    const page = await context.newPage();
    const res = await page.goto(`${app.url}/portal/${token}`);
    expect(res!.status()).toBe(401);
    expect(res!.headers()['cache-control']).toBe('no-store');
    expect(res!.headers()['referrer-policy']).toBe('no-referrer');
    expect(await page.textContent('h1')).toBe('This link is no longer valid');
    const body = (await page.textContent('body'))!;
    for (const secret of ['4567', 'Acme', 'Roam', '€']) expect(body).not.toContain(secret);
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(`${app.url}/portal/${token}?lang=pt`);
    expect(await page.textContent('h1')).toBe('Esta ligação já não é válida');
    await page.close();
  }, 60_000);

  it('never writes the access token to the log', () => {
    const lines = written.join('');
    expect(lines).toContain('/portal/:token');
    expect(lines).not.toContain(token);
  });
});

declare const document: { documentElement: { lang: string } };
