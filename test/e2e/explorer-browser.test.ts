import fs from 'node:fs';
import path from 'node:path';
import { Browser, Page, chromium } from 'playwright-core';
import { DEFAULT_QUERY } from '../../src/graphql/explorer';
import { TestApp, startTestApp } from '../helpers/app';
import { basic } from '../helpers/fixtures';
import { waitFor } from '../helpers/wait';

/**
 * The offline explorer in a real browser: Debian's chromium driven by playwright-core (never a
 * browser download). Skipped, with the reason printed, only where /usr/bin/chromium is missing
 * (.ci/run installs it with apt-get when it can).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** Screenshots land here for a person to look at (var/ is ignored by git). */
const SHOTS = path.join(__dirname, '../../var/test-screenshots');

const available = fs.existsSync(CHROMIUM);
if (!available)
  process.stdout.write(`explorer browser tests skipped: ${CHROMIUM} is missing (apt-get install chromium)\n`);
const describeBrowser = available ? describe : describe.skip;

/** The DOM members the browser-side callbacks use (the test program is compiled without the DOM lib). */
declare const document: { querySelector(selector: string): unknown; createElement(tag: 'canvas'): Canvas };
declare const Image: new () => { src: string; width: number; height: number; decode(): Promise<void> };
interface Canvas {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    drawImage(image: unknown, x: number, y: number): void;
    getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
  } | null;
}

const QUERY = '{ introspectToken(token: "no-such-token") { active } }';

/** Share of pixels differing from the most common colour, and the number of distinct colours, of a PNG. */
async function pixelStats(browser: Browser, png: Buffer): Promise<{ inked: number; colours: number }> {
  const page = await browser.newPage();
  try {
    return await page.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const g = canvas.getContext('2d')!;
      g.drawImage(img, 0, 0);
      const data = g.getImageData(0, 0, img.width, img.height).data;
      const counts = new Map<number, number>();
      for (let i = 0; i < data.length; i += 4) {
        const key = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      const top = Math.max(...counts.values());
      const total = data.length / 4;
      return { inked: (total - top) / total, colours: counts.size };
    }, png.toString('base64'));
  } finally {
    await page.close();
  }
}

/** Waits for GraphiQL to render with the schema loaded (the docs button needs the introspection answer). */
async function schemaLoaded(page: Page): Promise<void> {
  await page.waitForSelector('.graphiql-query-editor .CodeMirror', { timeout: 30_000 });
  await page.waitForSelector('.graphiql-sidebar button[aria-label="Show Documentation Explorer"]', {
    timeout: 30_000,
  });
}

/** The text of the query editor. */
function editorText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.querySelector('.graphiql-query-editor .CodeMirror') as unknown as {
      CodeMirror: { getValue(): string };
    };
    return el.CodeMirror.getValue();
  });
}

/**
 * Waits for GraphiQL to render with the schema loaded, runs `query` (default QUERY; null keeps the
 * editor's default query, as a person's first click does), and returns the result pane's text once
 * it contains `expect` (before that, `started` runs after the click).
 */
async function runQuery(
  page: Page,
  query: string | null = QUERY,
  expected = 'introspectToken',
  started: () => Promise<void> = async () => undefined,
): Promise<string> {
  await schemaLoaded(page);
  // Replace the default query (CodeMirror fires the change GraphiQL listens to), then give
  // GraphiQL's debounced operation-name update time to run.
  if (query !== null)
    await page.evaluate((q) => {
      const cm = document.querySelector('.graphiql-query-editor .CodeMirror') as unknown as {
        CodeMirror: { setValue(v: string): void };
      };
      cm.CodeMirror.setValue(q);
    }, query);
  await page.waitForTimeout(1000);
  await page.click('.graphiql-execute-button');
  await started();
  await page.waitForFunction(
    (text) => {
      const el = document.querySelector('.result-window .CodeMirror') as unknown as {
        CodeMirror?: { getValue(): string };
      } | null;
      return !!el?.CodeMirror && el.CodeMirror.getValue().includes(text);
    },
    expected,
    { timeout: 30_000 },
  );
  return page.evaluate(() => {
    const el = document.querySelector('.result-window .CodeMirror') as unknown as {
      CodeMirror: { getValue(): string };
    };
    return el.CodeMirror.getValue();
  });
}

describeBrowser('offline GraphQL explorer in chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  }, 60_000);
  afterAll(() => browser?.close());

  describe('GRAPHQL_EXPLORER=graphiql with a pre-filled authorization', () => {
    let app: TestApp;
    const authorization = basic('portal');
    beforeAll(async () => {
      app = await startTestApp({
        env: { GRAPHQL_EXPLORER: 'graphiql' },
        sandboxAuthorization: authorization,
      });
    });
    afterAll(() => app?.close());

    it('loads only from the gateway, runs a query with the header, and renders', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const requested: string[] = [];
      const graphqlAuth: (string | undefined)[] = [];
      const problems: string[] = [];
      page.on('request', (r) => {
        requested.push(r.url());
        if (r.method() === 'POST' && new URL(r.url()).pathname === '/graphql')
          graphqlAuth.push(r.headers().authorization);
      });
      page.on('requestfailed', (r) => problems.push(`failed ${r.url()}: ${r.failure()?.errorText}`));
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console: ${m.text()}`);
      });
      try {
        const res = await page.goto(`${app.url}/graphql`);
        expect(res?.status()).toBe(200);
        const result = await runQuery(page);
        expect(JSON.parse(result)).toEqual({ data: { introspectToken: { active: false } } });
        // The query went out with the pre-filled header (the schema load too).
        expect(graphqlAuth.length).toBeGreaterThanOrEqual(2);
        expect(graphqlAuth.every((a) => a === authorization)).toBe(true);
        const shot = await page.screenshot({ path: path.join(SHOTS, 'explorer-graphiql.png') });
        const stats = await pixelStats(browser, shot);
        expect(stats.colours).toBeGreaterThan(50); // text, editor colours: not a blank or error page
        expect(stats.inked).toBeGreaterThan(0.01);
        expect(await page.textContent('.result-window')).toContain('"active": false');
        expect(problems).toEqual([]);
        // Every request the page made went to the gateway (or was a data: URL).
        const foreign = requested.filter((u) => !u.startsWith(`${app.url}/`) && !u.startsWith('data:'));
        expect(foreign).toEqual([]);
        expect(requested).toEqual(
          expect.arrayContaining([
            `${app.url}/graphql/explorer/assets/graphiql/index.umd.js`,
            `${app.url}/graphql/explorer/assets/react/react.production.min.js`,
            `${app.url}/graphql/explorer/assets/react-dom/react-dom.production.min.js`,
            `${app.url}/graphql/explorer/assets/graphiql/style.css`,
          ]),
        );
      } catch (err) {
        await page.screenshot({ path: path.join(SHOTS, 'explorer-graphiql-failed.png') });
        throw new Error(`${(err as Error).message}\nbrowser problems: ${JSON.stringify(problems)}`, {
          cause: err,
        });
      } finally {
        await context.close();
      }
    }, 120_000);

    it('the first click runs the default query as it opens: data, no errors, and no request leaves the gateway', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      // Every request of the context (pages, workers, prefetches): one for another origin is
      // recorded and refused, so a stray fetch shows here even when nothing on the page errors.
      const origin = new URL(app.url).origin;
      const foreign: string[] = [];
      await context.route(
        (u) => u.protocol !== 'data:' && u.origin !== origin,
        (route) => {
          foreign.push(route.request().url());
          return route.abort('blockedbyclient');
        },
      );
      const page = await context.newPage();
      const requested: string[] = [];
      const problems: string[] = [];
      page.on('request', (r) => requested.push(r.url()));
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console: ${m.text()}`);
      });
      try {
        expect((await page.goto(`${app.url}/graphql/explorer`))?.status()).toBe(200);
        await schemaLoaded(page);
        // What a person sees first: the gateway's default query, untouched.
        expect(await editorText(page)).toBe(DEFAULT_QUERY);
        const answered = page.waitForResponse(
          (r) =>
            r.request().method() === 'POST' && (r.request().postData() ?? '').includes('introspectToken'),
          { timeout: 60_000 },
        );
        const shown = JSON.parse(await runQuery(page, null, '"introspectToken"')) as {
          data?: { introspectToken?: Record<string, unknown> };
          errors?: unknown;
        };
        const res = await answered;
        expect(res.status()).toBe(200);
        expect(shown.errors).toBeUndefined();
        expect(shown.data?.introspectToken).toMatchObject({ active: false, clientId: null });
        expect(await res.json()).toEqual(shown);
        // Reading the schema as a person would: the docs explorer, then the Query type's fields
        // (descriptions are rendered as markdown; none may load anything from elsewhere).
        await page.click('.graphiql-sidebar button[aria-label="Show Documentation Explorer"]');
        await page.waitForSelector('.graphiql-doc-explorer', { timeout: 30_000 });
        await page.click('.graphiql-doc-explorer a.graphiql-doc-explorer-type-name >> text=Query');
        await page.waitForSelector('.graphiql-doc-explorer >> text=introspectToken', { timeout: 30_000 });
        await page.screenshot({ path: path.join(SHOTS, 'explorer-first-click.png') });
        expect(problems).toEqual([]);
        expect(foreign).toEqual([]);
        expect(requested.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'))).toEqual([]);
      } catch (err) {
        await page.screenshot({ path: path.join(SHOTS, 'explorer-first-click-failed.png') });
        throw new Error(`${(err as Error).message}\nbrowser problems: ${JSON.stringify(problems)}`, {
          cause: err,
        });
      } finally {
        await context.close();
      }
    }, 120_000);
  });

  describe('GRAPHQL_EXPLORER=graphiql: a subscription', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp({
        env: { GRAPHQL_EXPLORER: 'graphiql', SUBSCRIPTION_POLL_MS: '50' },
        sandboxAuthorization: basic('admin'),
      });
    });
    afterAll(() => app?.close());

    it('runs balanceChanged over graphql-ws with the header as connection_init payload and shows the event', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      try {
        await page.goto(`${app.url}/graphql`);
        const result = await runQuery(
          page,
          'subscription { balanceChanged(msisdn: "353871234567") { kind amount balance } }',
          'ADJUSTMENT',
          async () => {
            await waitFor(() => app.app.services.events.subscriptionCount >= 1, {
              what: 'the subscription to reach the gateway',
              timeoutMs: 30_000,
              intervalMs: 50,
            });
            const adjusted = await app.request('POST', '/graphql', {
              as: 'admin',
              body: {
                query:
                  'mutation { adjustBalance(msisdn: "353871234567", amount: "2.50", reason: "explorer test") { subscriber { balance } userErrors { code } } }',
              },
            });
            expect(adjusted.json().errors).toBeUndefined();
          },
        );
        expect(JSON.parse(result)).toEqual({
          data: { balanceChanged: { kind: 'ADJUSTMENT', amount: '2.50', balance: '12.50' } },
        });
      } finally {
        await context.close();
      }
    }, 120_000);
  });

  describe('GRAPHQL_EXPLORER=auto on a network without Apollo’s CDN', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp({ env: { GRAPHQL_EXPLORER: 'auto' } });
    });
    afterAll(() => app?.close());

    it('falls back from Apollo Sandbox to the gateway’s GraphiQL, with no header pre-filled', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      // The air gap: anything not on the gateway fails as it would offline.
      await context.route(
        (u) => !u.href.startsWith(`${app.url}/`),
        (route) => route.abort('internetdisconnected'),
      );
      const page = await context.newPage();
      const graphqlAuth: (string | undefined)[] = [];
      page.on('request', (r) => {
        if (r.method() === 'POST' && new URL(r.url()).pathname === '/graphql')
          graphqlAuth.push(r.headers().authorization);
      });
      try {
        await page.goto(`${app.url}/graphql`);
        await page.waitForURL(`${app.url}/graphql/explorer`, { timeout: 30_000 });
        await page.waitForSelector('.graphiql-query-editor .CodeMirror', { timeout: 30_000 });
        await page.waitForSelector('.graphiql-sidebar button[aria-label="Show Documentation Explorer"]', {
          timeout: 30_000,
        });
        await page.screenshot({ path: path.join(SHOTS, 'explorer-auto-fallback.png') });
        // Schema introspection worked without credentials; nothing was pre-filled.
        expect(graphqlAuth.length).toBeGreaterThanOrEqual(1);
        expect(graphqlAuth.every((a) => a === undefined)).toBe(true);
      } finally {
        await context.close();
      }
    }, 120_000);
  });
});
