import { expect } from 'chai';
import { ApiError, readAnswer } from '../src/api';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

async function failure(response: Response): Promise<ApiError> {
  try {
    await readAnswer(response);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('the answer was read as a success');
}

describe('the console: reading the API answers (pure)', () => {
  it('when an answer has no body (204), then it reads as undefined, never as a JSON error', async () => {
    expect(await readAnswer(new Response(null, { status: 204 }))).to.equal(undefined);
    expect(await readAnswer(json(200, { data: { uuid: 'r' } }))).to.deep.equal({ data: { uuid: 'r' } });
  });

  it('when a 422 names fields, then the error keeps each JSON path with its messages', async () => {
    const error = await failure(
      json(422, { message: 'The given data was invalid.', errors: { 'volumes.1.altitude_upper.value': ['The value field is required.'] } }),
    );
    expect(error.status).to.equal(422);
    expect(error.message).to.equal('The given data was invalid.');
    expect(error.fieldMessages('volumes.1')).to.deep.equal(['The value field is required.']);
  });

  it("when a decision's airspace is taken (409), then the shared volumes come with the message", async () => {
    const conflict = { start_time: 'a', end_time: 'b', lower_altitude_m: 0, upper_altitude_m: 60, bbox: [5, 52, 5.01, 52.01] };
    const error = await failure(json(409, { message: 'The flight overlaps an approved flight of another operator.', conflicts: [conflict] }));
    expect(error.conflicts).to.deep.equal([conflict]);
    expect((await failure(json(409, { message: 'A Pending flight request cannot be activated.' }))).conflicts).to.deep.equal([]);
  });

  it('when an error answer is not JSON (an HTML page of a proxy, an empty 502), then its status describes it', async () => {
    const html = await failure(new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
    expect([html.status, html.message]).to.deep.equal([502, '502 Bad Gateway']);
    expect((await failure(new Response(null, { status: 503 }))).message).to.equal('503');
    expect((await failure(json(429, { message: 'Too Many Requests' }, { 'Retry-After': '7' }))).retryAfter).to.equal(7);
  });
});
