import fs from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import Koa from 'koa';
import { Browser, Page, chromium } from 'playwright-core';
import { loadConfig } from '../../src/config';
import { ServiceUnavailableError } from '../../src/errors';
import { requestDeadlines } from '../../src/http/deadline';
import { unavailableAnswers } from '../../src/http/unavailable';
import { createLogger } from '../../src/logger';
import { GatewayMetrics } from '../../src/metrics';
import { PortalPageServices, portalPages, PORTAL_CSP } from '../../src/portal/router';

/**
 * The portal page on its own: the router over a fake `services.portal` and, in chromium, the
 * page's script against a fake /graphql that records what it is sent. The whole gateway (the
 * real GraphQL, the database) is test/e2e/portal-browser.test.ts.
 */
const GOOD = 'good-token_0123456789abcdefghijklmnopqrstuvw';
const BRANDING = { displayName: 'Acme <Mobile> & Co', primaryColor: '#ffcc00', logoUrl: null };
/** A link whose lookup finds the database down. */
const DOWN = 'down-token_0123456789abcdefghijklmnopqrstuvw';
/** A link whose lookup fails for a reason that is not the database's (a bug). */
const BROKEN = 'broken-token_0123456789abcdefghijklmnopqrstu';

interface Fake {
  url: string;
  /** Bodies of the POST /graphql requests, in order. */
  graphql: { query: string; variables: Record<string, unknown>; authorization?: string }[];
  /** Answers the next purchasePlan requests with 503 this many times. */
  failPurchases: number;
  /** Then answers IDEMPOTENCY_KEY_IN_USE (the first send still running) this many times. */
  inUse: number;
  close(): Promise<void>;
}

/** A Koa app with the portal router and a fake /graphql answering `me` and `purchasePlan`. */
async function startFake(): Promise<Fake> {
  const services: PortalPageServices = {
    portal: {
      open: async (token) => {
        if (token === DOWN) throw new ServiceUnavailableError('unreachable');
        if (token === BROKEN) throw new TypeError('a bug');
        return token === GOOD ? { tenantId: 1, branding: BRANDING } : null;
      },
    },
  };
  const plans: Record<string, unknown>[] = [];
  let balance = '10.00';
  const fake = { graphql: [], failPurchases: 0, inUse: 0 } as unknown as Fake;
  const koa = new Koa();
  // What the gateway's error guard does with an error no part handled: a bare 500.
  koa.use(async (ctx, next) => {
    try {
      await next();
    } catch {
      ctx.status = 500;
      ctx.body = 'internal error';
    }
  });
  koa.use(portalPages(services, createLogger('silent')).routes);
  koa.use(async (ctx, next) => {
    if (ctx.path !== '/graphql' || ctx.method !== 'POST') return next();
    const chunks: Buffer[] = [];
    for await (const c of ctx.req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString());
    fake.graphql.push({ ...body, authorization: ctx.get('authorization') });
    ctx.type = 'application/json';
    if (ctx.get('authorization') !== `Bearer ${GOOD}`) {
      ctx.status = 401;
      ctx.body = { errors: [{ message: 'no', extensions: { code: 'UNAUTHENTICATED' } }] };
      return;
    }
    if (body.query.includes('purchasePlan')) {
      if (fake.failPurchases > 0) {
        fake.failPurchases--;
        ctx.status = 503;
        ctx.body = { errors: [{ message: 'down', extensions: { code: 'SERVICE_UNAVAILABLE' } }] };
        return;
      }
      if (fake.inUse > 0) {
        fake.inUse--;
        ctx.body = {
          data: {
            purchasePlan: {
              plan: null,
              balance: null,
              userErrors: [{ code: 'IDEMPOTENCY_KEY_IN_USE', message: 'x' }],
            },
          },
        };
        return;
      }
      await new Promise((r) => setTimeout(r, 150));
      const id = body.variables.input.planDefinitionId as number;
      if (id === 2) {
        ctx.body = {
          data: {
            purchasePlan: {
              plan: null,
              balance: null,
              userErrors: [{ code: 'INSUFFICIENT_FUNDS', message: 'x' }],
            },
          },
        };
        return;
      }
      balance = '5.01';
      const plan = {
        id: `P${plans.length + 1}`,
        planId: plans.length + 1,
        name: 'Roam 1GB',
        unitMeteringType: 'VOLUME',
        unitAmount: 1_000_000_000,
        remaining: 1_000_000_000,
        period: 1,
        renewed: '2026-11-26T10:00:00Z',
      };
      plans.unshift(plan);
      ctx.body = { data: { purchasePlan: { plan, balance, userErrors: [] } } };
      return;
    }
    ctx.body = {
      data: {
        me: {
          maskedMsisdn: '••••••••4567',
          balance,
          currency: 'EUR',
          status: 'ACTIVE',
          offers: {
            edges: [
              {
                node: {
                  id: 'O1',
                  planDefinitionId: 1,
                  name: 'Roam 1GB',
                  unitMeteringType: 'VOLUME',
                  unitAmount: 1_000_000_000,
                  price: '4.99',
                  currency: 'EUR',
                  recurring: false,
                },
              },
              {
                node: {
                  id: 'O2',
                  planDefinitionId: 2,
                  name: 'Roam 100 min',
                  unitMeteringType: 'TIME',
                  unitAmount: 6000,
                  price: '99.00',
                  currency: 'EUR',
                  recurring: true,
                },
              },
            ],
          },
          plans: { edges: plans.map((node) => ({ node })) },
        },
      },
    };
  });
  const server = http.createServer(koa.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}

/** The status of a GET with `if-none-match` (and no cache-control). */
function conditionalStatus(url: string, etag: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'if-none-match': etag } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

describe('portal page over HTTP', () => {
  let fake: Fake;
  beforeAll(async () => {
    fake = await startFake();
  });
  afterAll(() => fake.close());

  it('serves a valid link its branded page with the security headers, no inline script', async () => {
    const res = await fetch(`${fake.url}/portal/${GOOD}`, {
      headers: { 'accept-language': 'pt-BR,pt;q=0.9' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(PORTAL_CSP);
    expect(PORTAL_CSP).toContain("script-src 'self'");
    expect(PORTAL_CSP).toContain("frame-ancestors 'none'");
    expect(PORTAL_CSP).not.toContain('unsafe-inline');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toContain('<html lang="pt">');
    expect(html).toContain('Acme &#60;Mobile&#62; &#38; Co');
    expect(html).toContain('/portal/assets/theme.css?primary=ffcc00');
    // Every <script> is either a file of the gateway or a JSON data block; no style attribute or element.
    for (const tag of html.match(/<script[^>]*>/g) ?? [])
      expect(tag).toMatch(/src="\/portal\/assets\/portal\.js\?v=[0-9a-f]{16}"|type="application\/json"/);
    expect(html).not.toMatch(/<style|style=/);
    expect(html).not.toContain(GOOD);
  });

  it('answers an unknown link 401 "no longer valid", localised, with no data', async () => {
    for (const [lang, text] of [
      ['en', 'This link is no longer valid'],
      ['es', 'Este enlace ya no es válido'],
      ['pt', 'Esta ligação já não é válida'],
    ]) {
      const res = await fetch(`${fake.url}/portal/revoked-token?lang=${lang}`);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-security-policy')).toBe(PORTAL_CSP);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const html = await res.text();
      expect(html).toContain(`<html lang="${lang}">`);
      expect(html).toContain(text);
      expect(html).not.toContain('<script');
      expect(html).not.toContain('Acme');
    }
    expect((await fetch(`${fake.url}/portal/${'x'.repeat(300)}`)).status).toBe(401);
  });

  it('answers a link while the database is down 503 "service is busy", localised, with retry-after and no data', async () => {
    for (const [lang, text] of [
      ['en', 'The service is busy'],
      ['es', 'El servicio está ocupado'],
      ['pt', 'O serviço está ocupado'],
    ]) {
      const res = await fetch(`${fake.url}/portal/${DOWN}?lang=${lang}`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toBe(PORTAL_CSP);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const html = await res.text();
      expect(html).toContain(`<html lang="${lang}">`);
      expect(html).toContain(text);
      // A link that loads the same address again; never the token itself.
      expect(html).toContain('<a class="retry" href="">');
      expect(html).not.toContain(DOWN);
      expect(html).not.toContain('<script');
    }
    // A failure that is not the database's stays the error guard's 500.
    expect((await fetch(`${fake.url}/portal/${BROKEN}`)).status).toBe(500);
  });

  it('serves the static files with their types and the tenant theme', async () => {
    const js = await fetch(`${fake.url}/portal/assets/portal.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    const etag = js.headers.get('etag')!;
    // fetch() adds cache-control: no-cache to a conditional request, so node:http asks here.
    expect(await conditionalStatus(`${fake.url}/portal/assets/portal.js`, etag)).toBe(304);
    const css = await fetch(`${fake.url}/portal/assets/portal.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const theme = await (await fetch(`${fake.url}/portal/assets/theme.css?primary=FFCC00`)).text();
    expect(theme).toBe(':root{--primary:#ffcc00;--on-primary:#000000}\n');
    const hostile = await (await fetch(`${fake.url}/portal/assets/theme.css?primary=red;}body{`)).text();
    expect(hostile).toBe(':root{--primary:#1f4e8c;--on-primary:#ffffff}\n');
    expect((await fetch(`${fake.url}/portal/assets/../../package.json`)).status).toBe(404);
    expect((await fetch(`${fake.url}/portal/assets/i18n.ts`)).status).toBe(404);
  });
});

declare const axe: {
  run(): Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[] }>;
};

/** The serious and critical violations axe-core finds on the page (rule and elements). */
async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol: the page's CSP (rightly) refuses an added <script>.
  await page.evaluate(fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const { violations } = await page.evaluate(() => axe.run());
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('portal link past its deadline', () => {
  it("is answered with the portal's 503 page in its language and logged without its token", async () => {
    const lines: string[] = [];
    const deadlines = requestDeadlines(
      loadConfig({ REQUEST_TIMEOUT_MS: '100', LOG_LEVEL: 'silent' }),
      { deadlineExceeded: { inc: () => undefined } } as unknown as GatewayMetrics,
      createLogger('info', { write: (line: string) => lines.push(line) }),
      unavailableAnswers({
        graphqlTimeoutMs: 100,
        portalPage: portalPages({ portal: { open: async () => null } }, createLogger('silent')).unavailable,
      }),
    );
    const koa = new Koa();
    // A request whose work never ends: the safety net answers and logs it.
    koa.use((ctx) =>
      deadlines(
        ctx,
        () => new Promise(() => undefined),
        () => undefined,
      ),
    );
    const server = http.createServer(koa.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const res = await fetch(
        `http://127.0.0.1:${(server.address() as AddressInfo).port}/portal/${GOOD}?lang=es`,
      );
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.headers.get('content-security-policy')).toBe(PORTAL_CSP);
      const html = await res.text();
      expect(html).toContain('<html lang="es">');
      expect(html).toContain('El servicio está ocupado');
      expect(html).not.toContain(GOOD);
      const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logged).toContainEqual(
        expect.objectContaining({ path: '/portal/:token', msg: 'request outlived its deadline' }),
      );
      expect(lines.join('')).not.toContain(GOOD);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  }, 10_000);
});

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = fs.existsSync(CHROMIUM);
if (!available)
  process.stdout.write(
    `portal page browser test skipped: ${CHROMIUM} is missing (apt-get install chromium)\n`,
  );
const describeBrowser = available ? describe : describe.skip;

describeBrowser('portal page script in chromium (fake /graphql)', () => {
  let browser: Browser;
  let fake: Fake;
  beforeAll(async () => {
    fake = await startFake();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await fake?.close();
  });

  it('shows the account, buys once on a double click, sends an attempt again with its key, shows refusals', async () => {
    const page = await browser.newPage({ viewport: { width: 720, height: 760 } });
    const violations: string[] = [];
    page.on('console', (m) => {
      // A refused script, style, image or request would be a CSP violation.
      if (m.type() === 'error' && /Content Security Policy|Refused/i.test(m.text()))
        violations.push(m.text());
    });
    await page.goto(`${fake.url}/portal/${GOOD}`);
    await page.waitForSelector('#offers .offer');
    expect(await page.textContent('#msisdn')).toBe('••••••••4567');
    expect(await page.textContent('#balance')).toBe('€10.00');
    expect(await page.textContent('#offers')).toContain('1 GB');
    expect(await page.textContent('#offers')).toContain('100 min');
    expect(await page.textContent('#plans')).toContain('You have no plans yet.');
    expect(fake.graphql[0].authorization).toBe(`Bearer ${GOOD}`);
    expect(await seriousViolations(page)).toEqual([]);

    // The first two sends of the attempt fail (503), the third finds the attempt still running:
    // the fourth, with the same key, succeeds.
    fake.failPurchases = 2;
    fake.inUse = 1;
    fake.graphql.length = 0;
    await page.dblclick('button[data-plan-definition-id="1"]');
    await page.waitForSelector('#plans .plan');
    const purchases = fake.graphql.filter((r) => r.query.includes('purchasePlan'));
    expect(purchases).toHaveLength(4);
    const keys = new Set(
      purchases.map((r) => (r.variables.input as { idempotencyKey: string }).idempotencyKey),
    );
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(await page.textContent('#notice')).toBe('Roam 1GB is now active.');
    expect(await page.textContent('#balance')).toBe('€5.01');
    expect(await page.textContent('#plans')).toContain('1 GB left of 1 GB');
    if (process.env.PORTAL_PAGE_SCREENSHOT)
      await page.screenshot({ path: process.env.PORTAL_PAGE_SCREENSHOT });

    // A new attempt gets a new key; a refusal is shown localised.
    await page.click('button[data-plan-definition-id="2"]');
    await page.waitForSelector('#notice.notice-error');
    expect(await page.textContent('#notice')).toBe(
      'Your balance is too low for this plan. Nothing was charged.',
    );
    const last = fake.graphql.filter((r) => r.query.includes('purchasePlan')).pop()!;
    expect((last.variables.input as { idempotencyKey: string }).idempotencyKey).not.toBe([...keys][0]);
    expect(await page.isDisabled('button[data-plan-definition-id="2"]')).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
    expect(violations).toEqual([]);
    await page.close();
  }, 60_000);

  it('turns into the "no longer valid" view when GraphQL answers UNAUTHENTICATED', async () => {
    // The page is served for GOOD; its script then calls /graphql with a token that fails.
    const page = await browser.newPage();
    await page.route('**/graphql', (route) =>
      route.fulfill({
        status: 401,
        contentType: 'application/json',
        body: JSON.stringify({ errors: [{ message: 'x', extensions: { code: 'UNAUTHENTICATED' } }] }),
      }),
    );
    await page.goto(`${fake.url}/portal/${GOOD}?lang=es`);
    await page.waitForFunction(
      () => document.querySelector('h1')?.textContent === 'Este enlace ya no es válido',
    );
    expect(await page.$('#msisdn')).toBeNull();
    await page.close();
  }, 60_000);
});

declare const document: { querySelector(selector: string): { textContent: string | null } | null };
