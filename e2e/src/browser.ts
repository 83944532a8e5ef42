import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core for the console's end-to-end
 * tests: no browser is downloaded (CI installs the `chromium` package), each
 * run gets a fresh profile, and every screen is checked with axe-core and
 * photographed at a desktop and a phone size under `.data/console-screenshots/`.
 */
export const CHROMIUM = '/usr/bin/chromium';
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SCREENSHOTS = join(REPO_ROOT, '.data', 'console-screenshots');
export const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  /** A new tab: its own sessionStorage, so its own signed-in key. */
  newPage(): Promise<Page>;
  /** Requests that went anywhere but `origin` (or an origin `allow` named), and CSP violations the pages reported. */
  strayRequests: string[];
  /** Another origin the pages may load from (a configured tile layer's). */
  allow(origin: string): void;
  cspViolations: string[];
  close(): Promise<void>;
}

export async function launchBrowser(origin: string): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does)`);
  const profile = await mkdtemp(join(tmpdir(), 'dfc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: SIZES[0],
  });
  const strayRequests: string[] = [];
  const cspViolations: string[] = [];
  const origins = [origin];
  const watch = (page: Page) => {
    page.on('request', (request) => {
      const url = request.url();
      if (!origins.some((allowed) => url.startsWith(`${allowed}/`)) && !url.startsWith('data:')) strayRequests.push(url);
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
  };
  context.on('page', watch);
  return {
    context,
    newPage: () => context.newPage(),
    strayRequests,
    allow: (other) => void origins.push(other),
    cspViolations,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

let axeSource: Promise<string> | undefined;

/**
 * axe-core on the page as it is: its serious and critical violations. The
 * script is evaluated through the DevTools protocol, which the page's CSP
 * (script-src 'self') does not govern, so the policy stays as served.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const source = await axeSource;
  await page.evaluate(source);
  // A string, run in the page: this program's types know no DOM.
  const violations = await page.evaluate<AxeViolation[]>("axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations)");
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/**
 * Checks one screen at both sizes: waits for the map's basemap (or its first
 * tile, with a tile layer) when the screen has a map, runs axe, and keeps a screenshot
 * `<name>-<width>x<height>.png`. Returns the violations found, by size.
 */
export async function checkScreen(page: Page, name: string): Promise<string[]> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const problems: string[] = [];
  for (const size of SIZES) {
    await page.setViewportSize(size);
    if ((await page.locator('.map-canvas').count()) > 0) {
      await page.locator('.leaflet-basemap-pane path, img.leaflet-tile-loaded').first().waitFor({ state: 'attached', timeout: 15_000 });
    }
    // Leaflet re-lays itself out on resize; let it settle before the picture.
    await page.waitForTimeout(300);
    for (const violation of await seriousViolations(page)) {
      problems.push(
        `${name} ${size.width}x${size.height}: ${violation.impact} ${violation.id} (${violation.help}) at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      );
    }
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size.width}x${size.height}.png`), fullPage: false });
  }
  await page.setViewportSize(SIZES[0]);
  return problems;
}
