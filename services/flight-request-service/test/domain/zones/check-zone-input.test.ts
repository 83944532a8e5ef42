import { expect } from 'chai';
import { ownFormatParts } from '../../../src/domain/zones/geo-zone.js';
import { checkZoneInput } from '../../../src/domain/zones/check-zone-input.js';
import { polygon, rectangle } from '../geometry/fixtures.js';

const SCHIPHOL_CTR = {
  name: 'Schiphol CTR',
  type: 'CTR',
  restriction: 'REQ_AUTHORISATION',
  lower_limit_m: 0,
  upper_limit_m: 900,
  authority: 'LVNL',
  ctr_exemption_ceiling_m: 60,
  geometry: polygon(rectangle(4.6, 52.2, 4.9, 52.45)),
};

describe('checkZoneInput', () => {
  it('when every field is valid, then it returns the zone with null schedule by default', () => {
    expect(checkZoneInput(SCHIPHOL_CTR)).to.deep.equal({
      ok: true,
      zone: { ...SCHIPHOL_CTR, schedule: null, ...ownFormatParts({ ...SCHIPHOL_CTR, schedule: null }) },
    });
  });

  it('when a temporary zone has a schedule and no CTR ceiling, then both are returned as given and null', () => {
    const schedule = { start: '2026-06-20T08:00:00+00:00', end: '2026-06-20T23:00:00+00:00' };
    const { ctr_exemption_ceiling_m: _ceiling, ...rest } = SCHIPHOL_CTR;
    const result = checkZoneInput({ ...rest, type: 'TEMPORARY', restriction: 'PROHIBITED', schedule });
    expect(result.ok && result.zone).to.include({ type: 'TEMPORARY', ctr_exemption_ceiling_m: null });
    expect(result.ok && result.zone.schedule).to.deep.equal(schedule);
  });

  it('when fields break the schema, then each is named with a Laravel-style message', () => {
    const result = checkZoneInput({
      ...SCHIPHOL_CTR,
      name: '',
      type: 'AIRFIELD',
      restriction: 'MAYBE',
      lower_limit_m: -1,
      upper_limit_m: 100_001,
      authority: 7,
    });
    expect(result).to.deep.equal({
      ok: false,
      errors: {
        name: ['The name field is required.'],
        type: ['The selected type is invalid.'],
        restriction: ['The selected restriction is invalid.'],
        lower_limit_m: ['The lower limit m field must be at least 0.'],
        upper_limit_m: ['The upper limit m field must not be greater than 100000.'],
        authority: ['The authority field must be a string.'],
      },
    });
  });

  it('when the lower limit is not below the upper one, then upper_limit_m is named', () => {
    expect(checkZoneInput({ ...SCHIPHOL_CTR, lower_limit_m: 900 })).to.deep.equal({
      ok: false,
      errors: { upper_limit_m: ['The upper limit m field must be greater than lower limit m.'] },
    });
  });

  it('when the schedule ends before it starts, then schedule.end is named', () => {
    const schedule = { start: '2026-06-20T08:00:00Z', end: '2026-06-20T07:00:00Z' };
    expect(checkZoneInput({ ...SCHIPHOL_CTR, schedule })).to.deep.equal({
      ok: false,
      errors: { 'schedule.end': ['The schedule.end field must be a date after schedule.start.'] },
    });
  });

  it('when a non-CTR zone has a CTR exemption ceiling, then it is refused', () => {
    expect(checkZoneInput({ ...SCHIPHOL_CTR, type: 'AIRPORT' })).to.deep.equal({
      ok: false,
      errors: {
        ctr_exemption_ceiling_m: ['The ctr exemption ceiling m field is only allowed for CTR zones; leave it out or null.'],
      },
    });
  });

  it('when the geometry is broken too, then field and geometry errors come together', () => {
    const result = checkZoneInput({
      ...SCHIPHOL_CTR,
      name: undefined,
      geometry: polygon([
        [0, 0],
        [1, 0],
        [1, 1],
        [0, 1],
      ]),
    });
    expect(result).to.deep.equal({
      ok: false,
      errors: {
        name: ['The name field is required.'],
        'geometry.coordinates.0': ['The geometry.coordinates.0 ring must be closed (first and last positions equal).'],
      },
    });
  });

  it('when the body is not an object, then it is refused', () => {
    expect(checkZoneInput([SCHIPHOL_CTR])).to.deep.equal({ ok: false, errors: { body: ['The body must be a JSON object.'] } });
  });
});
