import type { AircraftCategory } from '@dfc/contracts';

/**
 * PRODUCT.md "Rules": `aircraft_type` is free text ("a kind of aircraft"),
 * stored as sent; screening reads the category derived from it. Words are
 * tried most specific first (a "tiltrotor" is a VTOL before a rotorcraft, a
 * "helicopter" is not a multirotor "copter"); anything unrecognised is `other`.
 */
const CATEGORY_WORDS: ReadonlyArray<readonly [AircraftCategory, RegExp]> = [
  ['vtol', /\b(vtol|tilt ?rotor|tilt ?wing|tail ?sitter)\b/],
  ['helicopter', /\b(helicopter|heli|single ?rotor|gyrocopter|autogyro)\b/],
  ['airship', /\b(airship|blimp|zeppelin|dirigible|balloon)\b/],
  ['fixed_wing', /\b(fixed ?wing|fixedwing|plane|airplane|aeroplane|glider|flying ?wing|wing)\b/],
  [
    'multirotor',
    /\b(multi ?rotor|multicopter|quad ?copter|quad|hexa ?copter|hexa|octo ?copter|octo|tricopter|drone|mavic|matrice|phantom|inspire|copter)\b/,
  ],
];

export function aircraftCategoryOf(aircraftType: string): AircraftCategory {
  const words = aircraftType.toLowerCase().replace(/[^a-z0-9]+/g, ' ');
  return CATEGORY_WORDS.find(([, pattern]) => pattern.test(words))?.[0] ?? 'other';
}
