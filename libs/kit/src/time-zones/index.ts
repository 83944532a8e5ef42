export { TimeZone } from './time-zone.js';
export { ZoneDatabase, timeZones } from './zone-database.js';
