/**
 * Whole request bodies shown in the document. Each is a valid request as it
 * stands (a test validates them against their schemas and sends them to the
 * running system), except that `operator_uuid` names a made-up operator: use
 * your own. The flight window is tomorrow, so the example never goes stale.
 */
export const EXAMPLE_OPERATOR_UUID = '9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d';

export const registerOperatorExample = {
  company_name: 'Skyline Surveys',
  email: 'ops@skyline.example',
  password: 'correct horse battery',
  phone: '+31 20 555 0100',
  operator_registration_number: 'NLD-RP-2026-0042',
  exemption_for_ctr: false,
  timezone: 'Europe/Amsterdam',
};

export const issueOperatorApiKeyExample = { name: 'laptop' };

export const cancelFlightRequestExample = { reason: 'Weather: wind above the aircraft limits.' };

export function submitFlightRequestExample(now: Date): Record<string, unknown> {
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString().slice(0, 10);
  return {
    operator_uuid: EXAMPLE_OPERATOR_UUID,
    operator_name: 'Jane Pilot',
    operator_email: 'jane@skyline.example',
    operator_phone: '+31 6 1234 5678',
    operator_company: 'Skyline Surveys',
    start_time: `${day}T10:00:00Z`,
    end_time: `${day}T11:00:00Z`,
    max_altitude: 100,
    aircraft_type: 'DJI Matrice 300',
    purpose: 'Roof inspection',
    flight_area: {
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          properties: {},
          geometry: {
            type: 'Polygon',
            coordinates: [[[5.1, 52.08], [5.11, 52.08], [5.11, 52.09], [5.1, 52.09], [5.1, 52.08]]],
          },
        },
      ],
    },
  };
}
