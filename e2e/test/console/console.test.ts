import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { waitFor } from '@dfc/kit/testing';
import { checkScreen, launchBrowser, type Browser } from '../../src/browser.js';
import { flightRequestBody, GatewayClient, WebhookReceiver, type RegisteredOperator } from '../../src/client.js';
import { startSystem, type System } from '../../src/system.js';

/**
 * The web console (/console) in Debian's Chromium against the real system:
 * each role's story through the page as its user clicks it, axe-core on every
 * screen, screenshots at 1280x800 and 390x844, and no request leaving the
 * deployment nor refused by the page's CSP.
 */
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const AUTHORITY = 'LVNL';
/** Inside the test zone (5.0..5.5, 52.0..52.5): screening opens an item for AUTHORITY. */
const IN_ZONE = 5.2;
const FAILED_AUTH_LIMIT = 3;

const square = (lon: number, lat = 52.2) => ({
  type: 'FeatureCollection',
  features: [
    {
      type: 'Feature',
      properties: {},
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [lon, lat],
            [lon + 0.01, lat],
            [lon + 0.01, lat + 0.01],
            [lon, lat + 0.01],
            [lon, lat],
          ],
        ],
      },
    },
  ],
});

describe('the web console in Chromium', function () {
  this.timeout(300_000);
  let system: System;
  let client: GatewayClient;
  let browser: Browser;
  let reviewerKey: string;
  let operator: RegisteredOperator;
  const receiver = new WebhookReceiver();
  const problems: string[] = [];

  const check = async (page: Page, name: string) => problems.push(...(await checkScreen(page, name)));
  const open = async (path = '') => {
    const page = await browser.newPage();
    await page.goto(`${system.gatewayUrl}/console${path}`);
    return page;
  };
  const signIn = async (key: string, operatorUuid?: string) => {
    const page = await open();
    await page.getByLabel('API key', { exact: true }).fill(key);
    if (operatorUuid !== undefined) await page.getByLabel('Operator UUID (operator keys only)').fill(operatorUuid);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    return page;
  };
  /** An operator's new-request form, its pilot, aircraft and purpose filled in. */
  const newRequest = async (purpose: string) => {
    const page = await signIn(operator.key, operator.uuid);
    await page.getByRole('link', { name: 'New request' }).click();
    await page.getByLabel('Pilot name').fill('Jane Pilot');
    await page.getByLabel('Pilot email').fill(operator.email);
    await page.getByLabel('Pilot phone').fill('+31 6 1234 5678');
    await page.getByLabel('Aircraft type').fill('multirotor');
    await page.getByLabel('Purpose').fill(purpose);
    return page;
  };
  const submitByApi = (body: unknown) =>
    waitFor(async () => {
      const answer = await client.send('POST', '/api/flight-requests', { key: operator.key, body });
      // The operator reaches flight-request-service by an event: until then its uuid is a 422.
      return answer.status === 422 && answer.body.errors?.operator_uuid ? undefined : answer;
    }, 20_000);

  before(async () => {
    if (!existsSync(resolve(REPO_ROOT, 'apps/console/dist/index.html'))) {
      await promisify(execFile)('npm', ['run', 'build', '-w', '@dfc/console'], { cwd: REPO_ROOT });
    }
    system = await startSystem({ serviceEnv: { gateway: { RATE_LIMIT_FAILED_AUTH_PER_IP_PER_MINUTE: String(FAILED_AUTH_LIMIT) } } });
    client = new GatewayClient(system.gatewayUrl);
    await receiver.start();
    const zone = await client.send('POST', '/api/zones', {
      key: system.adminKey,
      body: {
        name: 'Console test CTR',
        type: 'CTR',
        restriction: 'REQ_AUTHORISATION',
        lower_limit_m: 0,
        upper_limit_m: 1000,
        authority: AUTHORITY,
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [5.0, 52.0],
              [5.5, 52.0],
              [5.5, 52.5],
              [5.0, 52.5],
              [5.0, 52.0],
            ],
          ],
        },
      },
    });
    expect(zone.status).to.equal(201);
    const reviewer = await client.send('POST', '/api/api-keys', {
      key: system.adminKey,
      body: { role: 'reviewer', authority: AUTHORITY, name: 'console desk' },
    });
    expect(reviewer.status).to.equal(201);
    reviewerKey = reviewer.body.data.key;
    operator = await client.registerOperatorWithKey({ timezone: 'Europe/Amsterdam' });
    // Like flight-request-service, webhook-service learns of the operator by an event.
    await waitFor(
      async () => {
        const endpoint = await client.send('POST', '/api/webhooks', {
          key: operator.key,
          body: { url: receiver.url, events: ['status_change', 'review_complete'] },
        });
        return endpoint.status === 201 ? endpoint : undefined;
      },
      20_000,
      200,
    );
    browser = await launchBrowser(system.gatewayUrl);
  });

  after(async () => {
    await browser?.close();
    await receiver.close();
    await system?.stop();
  });

  afterEach(() => {
    expect(problems.splice(0), 'serious or critical axe violations').to.deep.equal([]);
    expect(browser.strayRequests, 'requests that left the deployment').to.deep.equal([]);
    expect(browser.cspViolations, 'CSP violations').to.deep.equal([]);
  });

  it("a reviewer approves an item on the map: the request becomes Approved and the operator's webhook arrives", async () => {
    const submitted = await submitByApi(flightRequestBody(operator, { purpose: 'Bridge survey', flight_area: square(IN_ZONE) }));
    expect(submitted.status).to.equal(201);
    expect(submitted.body.data.status).to.equal('Pending');
    const uuid: string = submitted.body.data.uuid;

    const page = await signIn(reviewerKey);
    await page.getByRole('heading', { name: 'Review queue' }).waitFor();
    await page.getByRole('cell', { name: 'Bridge survey', exact: true }).waitFor();
    await check(page, 'review-queue');

    await page.getByRole('link', { name: /Review the request of .*Bridge survey/ }).click();
    await page.getByRole('heading', { name: 'Review a flight request' }).waitFor();
    await page.locator('.leaflet-overlay-pane path').first().waitFor();
    expect(await page.getByText('ZONE_REQUIRES_AUTHORISATION').count()).to.be.greaterThan(0);
    // The zone that raised the item: on the map beneath the area, drawn out, and beside the item with its limits as published.
    await page.locator('.leaflet-zones-pane path').first().waitFor();
    expect(await page.locator('.legend').textContent()).to.include('Zone that raised the review');
    const raisedBy = page.locator('article.item').getByRole('article', { name: 'Zone Console test CTR' });
    await raisedBy.waitFor();
    expect(await raisedBy.textContent())
      .to.include('REQ_AUTHORISATION')
      .and.include('0 m AGL – 1,000 m AGL')
      .and.include('Permanent')
      .and.include(AUTHORITY);
    expect(await page.locator('.zones-around summary').textContent()).to.equal('Zones around the area: 1');
    await check(page, 'review-item');

    // An empty reason: the API's 422 message sits beside the reason field.
    await page.getByRole('button', { name: 'Approve' }).click();
    const reasonErrors = page.locator('#reason-' + submitted.body.data.review.items[0].id + '-errors');
    await reasonErrors.waitFor();
    expect(await reasonErrors.textContent()).to.match(/reason/i);

    await page.getByLabel('Reason for the decision').fill('Coordinated with the tower');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Request status: Approved').waitFor();

    const record = await client.send('GET', `/api/flight-requests/${uuid}`, { key: operator.key });
    expect(record.body.data.status).to.equal('Approved');
    const hooks = await waitFor(
      () => {
        const arrived = receiver.about(uuid, 'status_change').filter((hook) => hook.body.data['status'] === 'Approved');
        return arrived.length > 0 ? arrived : undefined;
      },
      20_000,
      100,
    );
    expect(hooks[0]?.body.data['flight_request_uuid']).to.equal(uuid);
    expect(
      sessionStorageHoldsOnlyTheKey(
        await page.evaluate<StorageState>('({ session: JSON.stringify(sessionStorage), local: localStorage.length, url: location.href })'),
        reviewerKey,
      ),
    ).to.equal(true);
  });

  it("a reviewer's open request follows what happens elsewhere without a reload: cancelled by its operator, its item is withdrawn and the form goes", async () => {
    const submitted = await submitByApi(flightRequestBody(operator, { purpose: 'Mast check', flight_area: square(IN_ZONE + 0.05) }));
    expect(submitted.body.data.status).to.equal('Pending');
    const page = await signIn(reviewerKey);
    await page.goto(`${system.gatewayUrl}/console/reviews/${submitted.body.data.uuid}`);
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    await page.evaluate('window.__notReloaded = true');

    const cancelled = await client.send('DELETE', `/api/flight-requests/${submitted.body.data.uuid}`, {
      key: operator.key,
      body: { reason: 'Plans changed' },
    });
    expect(cancelled.status).to.equal(200);
    await page.getByText('Request status: Cancelled').waitFor({ timeout: 15_000 });
    expect(await page.getByRole('button', { name: 'Approve' }).count()).to.equal(0);
    expect(await page.locator('.items').textContent()).to.include('withdrawn');
    expect(await page.evaluate('window.__notReloaded'), 'the page was not reloaded').to.equal(true);
  });

  it("a reviewer sees the airspace a request shares with another operator's pending request, in the queue and on the map, naming no one; once that one is approved, the airspace it holds", async () => {
    const other = await client.registerOperatorWithKey();
    const mine = await submitByApi(flightRequestBody(operator, { purpose: 'Crane lift', flight_area: square(IN_ZONE + 0.2) }));
    const theirs = await waitFor(
      async () => {
        const answer = await client.send('POST', '/api/flight-requests', {
          key: other.key,
          body: flightRequestBody(other, { purpose: 'Roof survey', max_altitude: 50, flight_area: square(IN_ZONE + 0.205, 52.205) }),
        });
        return answer.status === 201 ? answer : undefined;
      },
      20_000,
      200,
    );
    expect([mine.body.data.status, theirs.body.data.status]).to.deep.equal(['Pending', 'Pending']);

    const page = await signIn(reviewerKey);
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'Crane lift', exact: true }) });
    await row.getByRole('cell', { name: '1 shared volume(s)' }).waitFor();
    await page.goto(`${system.gatewayUrl}/console/reviews/${mine.body.data.uuid}`);
    await page.getByRole('heading', { name: 'Competing requests' }).waitFor();
    expect(await page.locator('.competing').textContent()).to.match(/^Shared volume: .* 0–50 m AGL$/);
    expect(await page.locator('.legend').textContent()).to.include('Competing pending flight');
    expect(await page.locator('.leaflet-overlay-pane path').count(), 'the area and the shared box').to.equal(2);
    const shown = await page.content();
    expect(shown).not.to.contain(theirs.body.data.uuid);
    expect(shown).not.to.contain(other.uuid);

    // The other request approved first: approving this one is the API's 409, and the airspace that
    // flight holds is shown beside the item and on the map, still naming no one.
    const first = await client.send('POST', `/api/reviews/${theirs.body.data.review.items[0].id}/decision`, {
      key: reviewerKey,
      body: { decision: 'approve', reason: 'First come' },
    });
    expect(first.status).to.equal(200);
    await page.getByLabel('Reason for the decision').fill('Coordinated');
    await page.getByRole('button', { name: 'Approve' }).click();
    const taken = page.locator('article.item .taken li');
    await taken.first().waitFor();
    expect(await page.locator('article.item [role="alert"]').textContent()).to.match(/^Conflict: /);
    expect(await taken.allTextContents()).to.have.length(1);
    expect(await taken.first().textContent()).to.match(/^Held by an approved flight: .* 0–50 m AGL$/);
    await page.locator('.legend').getByText('Shared with another flight').waitFor();
    expect(await page.locator('.leaflet-overlay-pane path').count(), 'the area and the held box').to.be.at.least(2);
    await check(page, 'review-item-taken');
    const after = await page.content();
    expect(after).not.to.contain(theirs.body.data.uuid);
    expect(after).not.to.contain(other.uuid);
    const record = await client.send('GET', `/api/flight-requests/${mine.body.data.uuid}`, { key: operator.key });
    expect(record.body.data.status, 'the item stays pending').to.equal('Pending');
  });

  it('an operator previews (findings shown, nothing stored), submits, sees the request on the map and cancels it; a 409 shows on the cancel form', async () => {
    const page = await signIn(operator.key, operator.uuid);
    await page.getByRole('heading', { name: 'Flight requests' }).waitFor();
    await page.getByRole('table').waitFor();
    await check(page, 'requests');

    await page.getByRole('link', { name: 'New request' }).click();
    await page.getByRole('heading', { name: 'New flight request' }).waitFor();
    await page.getByLabel('Pilot name').fill('Jane Pilot');
    await page.getByLabel('Pilot email').fill(operator.email);
    await page.getByLabel('Pilot phone').fill('+31 6 1234 5678');
    await page.getByLabel('Aircraft type').fill('multirotor');
    await page.getByLabel('Flight area (GeoJSON FeatureCollection)').fill(JSON.stringify(square(IN_ZONE + 0.1)));
    // The map fits the pasted area, and the zones of its view come with it, limits and all.
    await page.locator('.leaflet-zones-pane path').first().waitFor();
    const inView = page.locator('.zones-around');
    await inView.getByText('Zones in view: 1').waitFor();
    await inView.getByText('Zones in view: 1').click();
    expect(await inView.getByRole('article', { name: 'Zone Console test CTR' }).textContent()).to.include('0 m AGL – 1,000 m AGL');
    // No purpose yet: the 422's message is shown under the purpose field.
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('#purpose-errors').waitFor();
    expect(await page.getByLabel('Purpose').getAttribute('aria-invalid')).to.equal('true');

    await page.getByLabel('Purpose').fill('Dike inspection');
    const before = await client.send('GET', '/api/flight-requests?per_page=100', { key: operator.key });
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('heading', { name: /Preview: this request would be Pending/ }).waitFor();
    expect(await page.locator('.preview').textContent()).to.include(`Review by: ${AUTHORITY}`);
    const after = await client.send('GET', '/api/flight-requests?per_page=100', { key: operator.key });
    expect(after.body.meta.total, 'a preview stores nothing').to.equal(before.body.meta.total);
    await check(page, 'new-request');

    await page.getByRole('button', { name: 'Submit request' }).click();
    await page.getByRole('heading', { name: 'Flight request', exact: true }).waitFor();
    await page.getByText('Status: Pending').waitFor();
    const uuid = page.url().split('/').pop() ?? '';
    await check(page, 'request-detail');

    await page.getByLabel('Reason for cancelling').fill('Weather');
    await page.getByRole('button', { name: 'Cancel request' }).click();
    await page.getByText('Status: Cancelled').waitFor();
    const cancelled = await client.send('GET', `/api/flight-requests/${uuid}`, { key: operator.key });
    expect(cancelled.body.data.status).to.equal('Cancelled');
    expect(cancelled.body.data.cancellation.reason).to.equal('Weather');

    // An approved request (outside the zone) shows its authorisation verified in the page; cancelled
    // behind the page's back, the page's own cancel gets the API's 409 reason on its form.
    const approved = await submitByApi(flightRequestBody(operator, { flight_area: square(4.5) }));
    expect(approved.body.data.status).to.equal('Approved');
    await page.goto(`${system.gatewayUrl}/console/requests/${approved.body.data.uuid}`);
    await page.getByText('Verified against the published keys').waitFor();
    expect(await page.getByText('Matches the signed hash').count()).to.equal(1);
    expect(
      (await client.send('DELETE', `/api/flight-requests/${approved.body.data.uuid}`, { key: operator.key, body: { reason: 'elsewhere' } })).status,
    ).to.equal(200);
    await page.getByLabel('Reason for cancelling').fill('Twice');
    await page.getByRole('button', { name: 'Cancel request' }).click();
    const conflict = page.locator('form[aria-labelledby="cancel-title"] [role="alert"]');
    await conflict.waitFor();
    expect(await conflict.textContent()).to.match(/^Conflict: /);
  });

  it("an operator previewing over another operator's approved flight sees the shared volume on the map, and nothing that identifies that flight", async () => {
    const other = await client.registerOperatorWithKey();
    const theirs = await waitFor(
      async () => {
        const answer = await client.send('POST', '/api/flight-requests', {
          key: other.key,
          body: flightRequestBody(other, { max_altitude: 60, flight_area: square(6.3, 52.4) }),
        });
        return answer.status === 201 ? answer : undefined;
      },
      20_000,
      200,
    );
    expect(theirs.body.data.status).to.equal('Approved');

    const page = await newRequest('Survey');
    await page.getByLabel('Flight area (GeoJSON FeatureCollection)').fill(JSON.stringify(square(6.305, 52.405)));
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('DECONFLICTION_OVERLAP').waitFor();
    expect(await page.locator('.preview').textContent()).to.match(/Shared volume: .* 0–60 m/);
    expect(await page.locator('.leaflet-overlay-pane path').count(), 'the area and the shared box').to.equal(2);
    const shown = await page.content();
    expect(shown).not.to.contain(theirs.body.data.uuid);
    expect(shown).not.to.contain(other.uuid);
  });

  it('an operator amends a request before it starts (rescreened, a new revision), then activates an approved flight inside its window and ends it', async () => {
    const later = await submitByApi(flightRequestBody(operator, { purpose: 'Field mapping', flight_area: square(4.3) }));
    expect(later.body.data.status).to.equal('Approved');
    const page = await signIn(operator.key, operator.uuid);
    await page.goto(`${system.gatewayUrl}/console/requests/${later.body.data.uuid}`);
    await page.getByRole('heading', { name: 'Amend this request' }).waitFor();
    expect(await page.getByRole('button', { name: 'Activate flight' }).count(), 'not before its window').to.equal(0);
    await page.getByRole('button', { name: 'Amend request' }).click();
    await page.getByText('Nothing changed: the request stays as it is.').waitFor();
    await page.getByLabel('Purpose').fill('Field mapping, north half');
    await page.getByLabel('Maximum altitude (m)').fill('80');
    await page.getByRole('button', { name: 'Amend request' }).click();
    await page.locator('.facts').getByText('Field mapping, north half').waitFor();
    const amended = await client.send('GET', `/api/flight-requests/${later.body.data.uuid}`, { key: operator.key });
    expect(amended.body.data).to.include({ revision: 2, max_altitude: 80, purpose: 'Field mapping, north half', status: 'Approved' });
    await check(page, 'request-amend');

    const second = (offset: number) => new Date(Math.floor((Date.now() + offset) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    const now = await submitByApi(
      flightRequestBody(operator, { purpose: 'Flying now', flight_area: square(4.1), start_time: second(-30_000), end_time: second(3_600_000) }),
    );
    expect(now.body.data.status).to.equal('Approved');
    await page.goto(`${system.gatewayUrl}/console/requests/${now.body.data.uuid}`);
    expect(await page.getByRole('heading', { name: 'Amend this request' }).count(), 'not once started').to.equal(0);
    await page.getByRole('button', { name: 'Activate flight' }).click();
    await page.getByText('Status: Activated').waitFor();
    await page.getByText('Verified against the published keys').waitFor();
    await check(page, 'request-activated');
    await page.getByLabel('Reason (optional)').fill('Landed');
    await page.getByRole('button', { name: 'End flight' }).click();
    await page.getByText('Status: Ended').waitFor();
    const ended = await client.send('GET', `/api/flight-requests/${now.body.data.uuid}`, { key: operator.key });
    expect(ended.body.data.activation.end_reason).to.equal('ended_by_operator');
    expect(await page.locator('.history').textContent()).to.include('Landed');
  });

  it('an operator draws a request of two 4-D volumes (one by clicking its corners), each with its band and window, submits it, sees them, amends a band, then moves the window to now, activates and ends the flight', async () => {
    const page = await newRequest('Two-band survey');
    await page.getByRole('button', { name: 'Add a volume' }).click();
    await page.getByLabel('Volume 1 area (GeoJSON Polygon)').fill(JSON.stringify(square(4.2).features[0]?.geometry));
    await page.locator('#volume-0-upper-value').fill('60');
    await page.getByRole('button', { name: 'Done drawing' }).click();
    await page.locator('.leaflet-overlay-pane path').first().waitFor();

    // The second volume's corners are clicked on the map, which "Add a volume" brings back into view.
    await page.getByRole('button', { name: 'Add a volume' }).click();
    await page.getByRole('button', { name: 'Done drawing' }).waitFor();
    const map = page.locator('.map-canvas');
    const canvas = await map.boundingBox();
    if (canvas === null) throw new Error('the map is not shown');
    expect(Math.round(canvas.y), 'the map is in view to be drawn on').to.be.at.least(0);
    for (const [x, y] of [
      [0.55, 0.35],
      [0.7, 0.35],
      [0.62, 0.2],
    ] as const) {
      await map.click({ position: { x: canvas.width * x, y: canvas.height * y } });
    }
    const drawnText = await page.getByLabel('Volume 2 area (GeoJSON Polygon)').inputValue();
    expect(drawnText, 'three corners make the area').not.to.equal('');
    const drawn = JSON.parse(drawnText) as { type: string; coordinates: number[][][] };
    expect(drawn.type).to.equal('Polygon');
    expect(drawn.coordinates[0]).to.have.length(4);
    await page.locator('#volume-1-lower-value').fill('60');
    await page.locator('#volume-1-upper-value').fill('100');
    // The second volume flies the window's second half: a window of its own.
    const start = await page.locator('#volume-1-start').inputValue();
    const end = await page.locator('#volume-1-end').inputValue();
    const half = minuteInput((Date.parse(`${start}Z`) + Date.parse(`${end}Z`)) / 2);
    await page.locator('#volume-1-start').fill(half);
    await page.getByRole('button', { name: 'Done drawing' }).click();
    expect(await page.locator('.leaflet-overlay-pane path').count(), 'both drafted volumes on the map').to.equal(2);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('heading', { name: /Preview: this request would be Approved/ }).waitFor();
    expect(await page.locator('.preview').textContent()).to.include('in 2 feature(s)');
    await check(page, 'new-request-volumes');

    await page.getByRole('button', { name: 'Submit request' }).click();
    await page.getByRole('heading', { name: 'Flight request', exact: true }).waitFor();
    await page.getByText('Status: Approved').waitFor();
    const volumes = page.locator('.facts .volume-list li');
    await volumes.first().waitFor();
    expect(await volumes.allTextContents()).to.have.length(2);
    expect(await volumes.nth(0).textContent()).to.equal(`0 m AGL – 60 m AGL, ${shownAt(start)} – ${shownAt(end)}`);
    expect(await volumes.nth(1).textContent()).to.equal(`60 m AGL – 100 m AGL, ${shownAt(half)} – ${shownAt(end)}`);
    expect(await page.locator('.leaflet-overlay-pane path').count(), 'one shape a volume').to.equal(2);
    expect(await page.locator('.legend').textContent()).to.include('Volume');
    const uuid = page.url().split('/').pop() ?? '';
    const stored = await client.send('GET', `/api/flight-requests/${uuid}`, { key: operator.key });
    expect(stored.body.data.volumes.map((volume: { altitude_upper: { value: number } }) => volume.altitude_upper.value)).to.deep.equal([60, 100]);
    expect(stored.body.data).to.include({ max_altitude: 100, start_time: `${start}:00Z`, end_time: `${end}:00Z` });
    expect(stored.body.data.volumes[1].start_time).to.equal(`${half}:00Z`);
    await check(page, 'request-volumes');

    // Amended by its volumes: a band left empty is the API's 422, shown with its JSON path and beside the field.
    await page.getByRole('heading', { name: 'Amend this request' }).waitFor();
    expect(await page.getByLabel('Maximum altitude (m)').count(), 'a request of volumes is amended by its volumes').to.equal(0);
    await page.locator('#volume-0-lower-value').fill('');
    await page.getByRole('button', { name: 'Amend request' }).click();
    const paths = page.locator('form[aria-labelledby="amend-title"] .error-paths');
    await paths.waitFor();
    expect(await paths.textContent()).to.include('volumes.0.altitude_lower.value');
    expect(await page.locator('#volume-0-lower-value').getAttribute('aria-invalid')).to.equal('true');
    await page.locator('#volume-0-lower-value').fill('0');
    await page.locator('#volume-1-upper-value').fill('90');
    await page.getByRole('button', { name: 'Amend request' }).click();
    await page
      .locator('.facts .volume-list li')
      .nth(1)
      .getByText(/^60 m AGL – 90 m AGL, /)
      .waitFor();
    const amended = await client.send('GET', `/api/flight-requests/${uuid}`, { key: operator.key });
    expect(amended.body.data).to.include({ revision: 2, status: 'Approved', max_altitude: 90 });
    expect(await page.locator('.outcome').textContent()).to.equal('Amended (revision 2): Approved, with a new authorisation.');
    expect(amended.body.data.volumes.map((volume: { altitude_upper: { value: number } }) => volume.altitude_upper.value)).to.deep.equal([60, 90]);
    expect(await page.getByRole('button', { name: 'Activate flight' }).count(), 'not before its window').to.equal(0);
    await check(page, 'request-volumes-amend');

    // Its window moved to begin now (the API takes a start a few minutes past): it may be activated, no longer amended.
    await page.locator('#volume-0-start').fill(minuteInput(Date.now()));
    await page.getByRole('button', { name: 'Amend request' }).click();
    await page.getByRole('button', { name: 'Activate flight' }).click();
    await page.getByText('Status: Activated').waitFor();
    expect(await page.locator('.outcome').textContent()).to.match(/^Activated at /);
    expect(await page.getByRole('heading', { name: 'Amend this request' }).count(), 'not once started').to.equal(0);
    await page.getByLabel('Reason (optional)').fill('Survey done');
    await page.getByRole('button', { name: 'End flight' }).click();
    await page.getByText('Status: Ended').waitFor();
    expect(await page.locator('.outcome').textContent()).to.match(/^Ended at .*: the airspace is given back\.$/);
    const ended = await client.send('GET', `/api/flight-requests/${uuid}`, { key: operator.key });
    expect(ended.body.data).to.include({ revision: 3, status: 'Ended' });
    expect(ended.body.data.activation.end_reason).to.equal('ended_by_operator');
    expect(await page.locator('.history').textContent()).to.include('Survey done');
  });

  it('an operator drafts a circle volume (a Point and its radius): the map draws a circle of that radius, drafted and once submitted', async () => {
    const page = await newRequest('Mast inspection');
    await page.getByRole('button', { name: 'Add a volume' }).click();
    await page.getByLabel('Volume 1 area (GeoJSON Polygon)').fill(JSON.stringify({ type: 'Point', coordinates: [4.9, 52.25] }));
    await page.getByLabel('Volume 1 radius (m)').fill('300');
    await page.locator('#volume-0-upper-value').fill('60');
    await page.getByRole('button', { name: 'Done drawing' }).click();
    // A circle fitted to the map spans most of it; a marker or a dot would be a few pixels wide.
    const circleDrawn = (what: string) =>
      page
        .waitForFunction(
          "[...document.querySelectorAll('.leaflet-overlay-pane path')].some((path) => path.getBoundingClientRect().width > 100)",
          undefined,
          {
            timeout: 5_000,
          },
        )
        .catch(() => expect.fail(`${what}: no circle over 100 px wide on the map`));
    await circleDrawn('the drafted circle');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('heading', { name: /Preview: this request would be Approved/ }).waitFor();
    await page.getByRole('button', { name: 'Submit request' }).click();
    await page.getByText('Status: Approved').waitFor();
    await circleDrawn('the stored circle');
    const uuid = page.url().split('/').pop() ?? '';
    const stored = await client.send('GET', `/api/flight-requests/${uuid}`, { key: operator.key });
    const circleArea = Math.PI * 300 ** 2;
    expect(stored.body.data.area).to.include({ feature_count: 1 });
    expect(stored.body.data.area.area_m2, 'the circle the API stored').to.be.closeTo(circleArea, circleArea * 0.01);
  });

  it('an operator sees the delivery log of its webhook endpoint and sends a test event', async () => {
    const page = await signIn(operator.key, operator.uuid);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: receiver.url }).click();
    await page.getByRole('table').waitFor();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByRole('cell', { name: 'ping' }).first().waitFor({ timeout: 15_000 });
    await waitFor(() => (receiver.received.some((hook) => hook.body.event === 'ping') ? true : undefined), 20_000, 100);
    await check(page, 'webhooks');
  });

  it('an admin imports zones with one bad feature and sees its error beside that feature; nothing is written until it is fixed', async () => {
    const page = await signIn(system.adminKey);
    await page.getByRole('heading', { name: 'Zones' }).waitFor();
    await page.getByRole('cell', { name: 'Console test CTR' }).waitFor();
    await check(page, 'zones');

    const feature = (name: string, lon: number, restriction: string) => ({
      type: 'Feature',
      properties: {
        id: `import-${name.toLowerCase()}`,
        name,
        type: 'NATURE',
        restriction,
        lower_limit_m: 0,
        upper_limit_m: 300,
        authority: 'NATURE',
      },
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [lon, 51],
            [lon + 0.1, 51],
            [lon + 0.1, 51.1],
            [lon, 51.1],
            [lon, 51],
          ],
        ],
      },
    });
    const features = [feature('Dunes', 4.0, 'CONDITIONAL'), feature('Heath', 4.2, 'SOMETIMES'), feature('Marsh', 4.4, 'CONDITIONAL')];
    await page.getByRole('link', { name: 'Import zones' }).click();
    await page.getByLabel(/FeatureCollection/).fill(JSON.stringify({ type: 'FeatureCollection', features }));
    await page.getByRole('button', { name: 'Import' }).click();
    const bad = page.locator('.import-features > li').nth(1);
    await bad.locator('.field-errors').waitFor();
    expect(await bad.textContent()).to.match(/^Feature 2: Heath.*restriction/i);
    expect(await page.locator('.import-features > li .field-errors').count(), 'only the bad feature has errors').to.equal(1);
    const zones = await client.send('GET', '/api/zones?per_page=100', { key: system.adminKey });
    expect(zones.body.meta.total, 'a refused import writes nothing').to.equal(1);
    await check(page, 'zone-import');

    features[1] = feature('Heath', 4.2, 'PROHIBITED');
    await page.getByLabel(/FeatureCollection/).fill(JSON.stringify({ type: 'FeatureCollection', features }));
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByText('Imported 3 zone(s): 3 new, 0 replaced.').waitFor();
  });

  it("a key of one role never sees another role's screens, by link or by address", async () => {
    const screens: Record<string, string[]> = {
      reviewer: ['/reviews'],
      operator: ['/requests', '/requests/new', '/webhooks'],
      admin: ['/zones', '/zones/import'],
    };
    const sessions: Array<[string, Page]> = [
      ['reviewer', await signIn(reviewerKey)],
      ['operator', await signIn(operator.key, operator.uuid)],
      ['admin', await signIn(system.adminKey)],
    ];
    for (const [role, page] of sessions) {
      const links = await page
        .getByRole('navigation', { name: 'Screens' })
        .getByRole('link')
        .evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute('href')));
      expect(links, role).to.deep.equal((screens[role] ?? []).map((path) => `/console${path}`));
      for (const [other, paths] of Object.entries(screens)) {
        if (other === role) continue;
        for (const path of paths) {
          await page.goto(`${system.gatewayUrl}/console${path}`);
          await page.getByRole('heading', { name: 'Not available' }).waitFor();
          expect(await page.getByRole('main').textContent(), `${role} at ${path}`).to.include(
            `not available to a${role === 'admin' ? 'n' : ''} ${role} key`,
          );
          expect(await page.locator('table, form, .map').count(), `${role} at ${path}`).to.equal(0);
        }
      }
    }
    await check(sessions[1]![1], 'not-available');
  });

  it("a deployment's tile layer (CONSOLE_TILE_URL) is drawn under the zones: its tiles load under the CSP, with the console's origin alone as referrer", async () => {
    const tiles = await startTileServer();
    browser.allow(tiles.origin);
    try {
      await system.kill('gateway', 'SIGTERM');
      await system.start('gateway', {
        CONSOLE_TILE_URL: `${tiles.origin}/wmts/GoogleMapsCompatible/{TileMatrix}/{TileRow}/{TileCol}.png`,
        CONSOLE_TILE_ATTRIBUTION: '© Test Mapping Agency',
        CONSOLE_TILE_ATTRIBUTION_URL: 'https://example.org/copyright',
        CONSOLE_TILE_MAX_ZOOM: '16',
      });
      const served = await fetch(`${system.gatewayUrl}/console`);
      expect(served.headers.get('content-security-policy')).to.include(`img-src 'self' data: ${tiles.origin};`);

      const submitted = await submitByApi(flightRequestBody(operator, { purpose: 'Tiled survey', flight_area: square(IN_ZONE + 0.15) }));
      const page = await signIn(reviewerKey);
      await page.goto(`${system.gatewayUrl}/console/reviews/${submitted.body.data.uuid}`);
      await page.locator('img.leaflet-tile-loaded').first().waitFor({ timeout: 15_000 });
      await page.locator('.leaflet-zones-pane path').first().waitFor();
      expect(await page.locator('.leaflet-basemap-pane').count(), 'no Natural Earth under the tiles').to.equal(0);
      const credit = page.locator('.leaflet-control-attribution a[href="https://example.org/copyright"]');
      expect(await credit.textContent()).to.equal('© Test Mapping Agency');
      await check(page, 'review-item-tiles');

      expect(tiles.requests.length).to.be.greaterThan(0);
      for (const request of tiles.requests) {
        // WMTS's TileMatrix/TileRow/TileCol, filled as zoom/y/x up to the configured zoom.
        const [, zoom, row, column] = /^\/wmts\/GoogleMapsCompatible\/(\d+)\/(\d+)\/(\d+)\.png$/.exec(request.path) ?? [];
        expect(Number(zoom), request.path).to.be.within(0, 16);
        expect(Number(row), request.path).to.be.below(2 ** Number(zoom));
        expect(Number(column), request.path).to.be.below(2 ** Number(zoom));
        expect(request.referer, 'the origin, never the page path (it names a request)').to.equal(`${system.gatewayUrl}/`);
      }
    } finally {
      await system.kill('gateway', 'SIGTERM');
      await system.start('gateway');
      await tiles.close();
    }
  });

  it('sign-in is keyboard operable; a wrong key is refused and, past the failed-authentication limit, the 429 says how long to wait', async () => {
    const page = await open();
    await check(page, 'sign-in');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.id')).to.equal('api-key');
    const wrong = `dfc_${'0'.repeat(16)}_${'x'.repeat(43)}`;
    await page.keyboard.type(wrong);
    await page.keyboard.press('Enter');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).to.match(/refused/);
    for (let attempt = 1; attempt <= FAILED_AUTH_LIMIT; attempt += 1) {
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign in' }).and(page.locator(':enabled')).waitFor();
    }
    await page.getByText(/Too many requests: try again in \d+ s\./).waitFor();
    expect(await page.evaluate('sessionStorage.length')).to.equal(0);
  });
});

/** A `datetime-local` value (UTC, as the console reads it) of the minute an instant falls in. */
function minuteInput(at: number): string {
  return new Date(at).toISOString().slice(0, 16);
}

/** A `datetime-local` value as the console shows a time: `3 Dec 2026, 10:00 UTC`. */
function shownAt(local: string): string {
  return new Date(`${local}:00Z`).toLocaleString('en-GB', { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'short' }) + ' UTC';
}

/** The key is in sessionStorage (the tab), not in localStorage nor in the address. */
interface StorageState {
  session: string;
  local: number;
  url: string;
}

function sessionStorageHoldsOnlyTheKey(state: StorageState, key: string): boolean {
  return state.session.includes(key) && state.local === 0 && !state.url.includes(key);
}

/** The smallest PNG (one transparent pixel): what a tile server answers, scaled by the map to a tile. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** A tile server on loopback (another origin than the gateway's), recording what each tile request carried. */
async function startTileServer(): Promise<{
  origin: string;
  requests: Array<{ path: string; referer: string | undefined }>;
  close(): Promise<void>;
}> {
  const requests: Array<{ path: string; referer: string | undefined }> = [];
  const server: Server = createServer((request, response) => {
    requests.push({ path: request.url ?? '', referer: request.headers.referer });
    response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': PIXEL.length });
    response.end(PIXEL);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
