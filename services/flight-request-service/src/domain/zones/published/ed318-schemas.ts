/*
 * The ED-318 JSON Schemas (draft-07) as the Swiss Federal Office of Civil Aviation publishes them
 * (InterUSS `monitoring` test data, Apache License 2.0), unchanged: the import validates ED-318
 * documents against them. Kept as a module so that the compiled service carries them.
 */

export const ED318_SCHEMAS: Readonly<Record<string, object>> = {
  'Schema_GeoJSONGeometries.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Any one of the GeoJSON geometry types, including LayeredGeoJSON validation.',
    definitions: {
      normalGeometry: {
        allOf: [
          {
            oneOf: [
              { type: 'null' },
              {
                title: 'GeoJSON Point with LayeredGeoJSON extent validation',
                type: 'object',
                required: ['type', 'coordinates'],
                properties: {
                  type: { type: 'string', enum: ['Point'] },
                  coordinates: { type: 'array', minItems: 2, items: { type: 'number' } },
                  bbox: { type: 'array', minItems: 4, items: { type: 'number' } },
                },
                extent: {
                  type: 'object',
                  required: ['subType', 'radius'],
                  properties: { subType: { type: 'string', enum: ['Circle'] }, radius: { type: 'number' } },
                },
              },
              {
                title: 'GeoJSON LineString',
                type: 'object',
                required: ['type', 'coordinates'],
                properties: {
                  type: { type: 'string', enum: ['LineString'] },
                  coordinates: { type: 'array', minItems: 2, items: { type: 'array', minItems: 2, items: { type: 'number' } } },
                  bbox: { type: 'array', minItems: 4, items: { type: 'number' } },
                },
              },
              {
                title: 'GeoJSON Polygon',
                type: 'object',
                required: ['type', 'coordinates'],
                properties: {
                  type: { type: 'string', enum: ['Polygon'] },
                  coordinates: {
                    type: 'array',
                    items: { type: 'array', minItems: 4, items: { type: 'array', minItems: 2, items: { type: 'number' } } },
                  },
                  bbox: { type: 'array', minItems: 4, items: { type: 'number' } },
                },
              },
              {
                title: 'GeoJSON MultiPoint',
                type: 'object',
                required: ['type', 'coordinates'],
                properties: {
                  type: { type: 'string', enum: ['MultiPoint'] },
                  coordinates: { type: 'array', items: { type: 'array', minItems: 2, items: { type: 'number' } } },
                  bbox: { type: 'array', minItems: 4, items: { type: 'number' } },
                },
              },
              {
                title: 'GeoJSON MultiLineString',
                type: 'object',
                required: ['type', 'coordinates'],
                properties: {
                  type: { type: 'string', enum: ['MultiLineString'] },
                  coordinates: {
                    type: 'array',
                    items: { type: 'array', minItems: 2, items: { type: 'array', minItems: 2, items: { type: 'number' } } },
                  },
                  bbox: { type: 'array', minItems: 4, items: { type: 'number' } },
                },
              },
              {
                title: 'GeoJSON MultiPolygon',
                type: 'object',
                required: ['type', 'coordinates'],
                properties: {
                  type: { type: 'string', enum: ['MultiPolygon'] },
                  coordinates: {
                    type: 'array',
                    items: { type: 'array', items: { type: 'array', minItems: 4, items: { type: 'array', minItems: 2, items: { type: 'number' } } } },
                  },
                  bbox: { type: 'array', minItems: 4, items: { type: 'number' } },
                },
              },
            ],
          },
          { $ref: './Schema_LayeredGeoJSON.json' },
        ],
      },
      geometryCollection: {
        allOf: [
          {
            title: 'GeoJSON GeometryCollection',
            type: 'object',
            required: ['type', 'geometries'],
            properties: {
              type: { type: 'string', enum: ['GeometryCollection'] },
              geometries: { type: 'array', items: { $ref: '#/definitions/normalGeometry' } },
              bbox: { type: 'array', minItems: 4, items: { type: 'number' } },
            },
          },
          { $ref: './Schema_LayeredGeoJSON.json' },
        ],
      },
    },
    oneOf: [{ $ref: '#/definitions/normalGeometry' }, { $ref: '#/definitions/geometryCollection' }],
  },
  'Schema_GeoZoneAuthority.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'authority',
    type: 'object',
    properties: {
      name: { type: 'array', items: { minItems: 1, $ref: './Schema_GeoZoneDataTypes.json#/definitions/textShortType' } },
      service: { type: 'array', items: { minItems: 1, $ref: './Schema_GeoZoneDataTypes.json#/definitions/textShortType' } },
      contactName: { type: 'array', items: { minItems: 1, $ref: './Schema_GeoZoneDataTypes.json#/definitions/textShortType' } },
      siteURL: { type: 'string', format: 'uri' },
      email: { type: 'string', format: 'email' },
      phone: { type: 'string', maxLength: 200 },
      purpose: { $ref: './Schema_GeoZoneDataTypes.json#/definitions/authorityRole' },
      intervalBefore: {
        description: 'A period of time expressed according to the ISO 8601 rules for time intervals.',
        type: 'string',
        format: 'duration',
      },
    },
    required: ['purpose'],
  },
  'Schema_GeoZoneCollectionMetadata.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'collection metadata',
    type: 'object',
    properties: {
      validFrom: { type: 'string', format: 'date-time' },
      validTo: { type: 'string', format: 'date-time' },
      issued: { type: 'string', format: 'date-time' },
      provider: { type: 'array', items: { minItems: 1, $ref: './Schema_GeoZoneDataTypes.json#/definitions/textShortType' } },
      description: { type: 'array', items: { minItems: 1, $ref: './Schema_GeoZoneDataTypes.json#/definitions/textShortType' } },
      otherGeoid: { $ref: './Schema_GeoZoneDataTypes.json#/definitions/URNType' },
      technicalLimitations: { type: 'array', items: { minItems: 1, $ref: './Schema_GeoZoneDataTypes.json#/definitions/textShortType' } },
    },
    required: [],
  },
  'Schema_GeoZoneDataTypes.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'geoZonesDataTypes',
    type: 'object',
    additionalProperties: false,
    definitions: {
      zoneType: { type: 'string', enum: ['USPACE', 'PROHIBITED', 'REQ_AUTHORIZATION', 'CONDITIONAL', 'NO_RESTRICTION'] },
      zoneVariant: { type: 'string', enum: ['COMMON', 'CUSTOMIZED'] },
      zoneReason: {
        type: 'array',
        maxItems: 9,
        items: { type: 'string', enum: ['AIR_TRAFFIC', 'SENSITIVE', 'PRIVACY', 'POPULATION', 'NATURE', 'NOISE', 'EMERGENCY', 'DAR', 'OTHER'] },
      },
      weekDayType: { type: 'string', enum: ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN', 'ANY'] },
      daylightEventType: { type: 'string', enum: ['BMCT', 'SR', 'SS', 'EECT'] },
      authorityRole: { type: 'string', enum: ['AUTHORIZATION', 'NOTIFICATION', 'INFORMATION'] },
      yesNoType: { type: 'string', enum: ['YES', 'NO'] },
      textShortType: {
        type: 'object',
        properties: { text: { type: 'string', maxLength: 200 }, lang: { type: 'string', maxLength: 5 } },
        required: ['lang'],
      },
      textLongType: {
        type: 'object',
        properties: { text: { type: 'string', maxLength: 1000 }, lang: { type: 'string', maxLength: 5 } },
        required: ['lang'],
      },
      URNType: { type: 'string' },
      metadata: {
        type: 'object',
        properties: {
          creationDate: { type: 'string', format: 'DateTimeType' },
          updateDateTime: { type: 'string', format: 'DateTimeType' },
          originator: { $ref: '#/definitions/textShortType' },
        },
      },
    },
    properties: {},
    required: [],
  },
  'Schema_GeoZoneProperties.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'UASZoneVersion',
    type: 'object',
    properties: {
      identifier: { type: 'string', maxLength: 7 },
      country: { type: 'string', minLength: 3, maxLength: 3 },
      name: { type: 'array', items: { minItems: 1, $ref: './Schema_GeoZoneDataTypes.json#/definitions/textShortType' } },
      type: { $ref: './Schema_GeoZoneDataTypes.json#/definitions/zoneType' },
      variant: { $ref: './Schema_GeoZoneDataTypes.json#/definitions/zoneVariant' },
      restrictionConditions: { type: 'string' },
      region: { type: 'integer' },
      reason: { $ref: './Schema_GeoZoneDataTypes.json#/definitions/zoneReason' },
      otherReasonInfo: { type: 'array', items: { minItems: 1, $ref: './Schema_GeoZoneDataTypes.json#/definitions/textShortType' } },
      regulationExemption: { $ref: './Schema_GeoZoneDataTypes.json#/definitions/yesNoType' },
      message: { type: 'array', items: { minItems: 1, $ref: './Schema_GeoZoneDataTypes.json#/definitions/textShortType' } },
      zoneAuthority: { type: 'array', items: { $ref: './Schema_GeoZoneAuthority.json' }, minItems: 1 },
      limitedApplicability: { type: 'array', items: { $ref: './Schema_GeoZoneTimePeriod.json' } },
      dataSource: { $ref: './Schema_GeoZoneDataTypes.json#/definitions/metadata' },
      extendedProperties: { type: 'object' },
    },
    required: ['identifier', 'country', 'type', 'variant', 'zoneAuthority'],
    additionalProperties: false,
  },
  'Schema_GeoZoneTimePeriod.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'timePeriod',
    type: 'object',
    definitions: {
      dailyPeriod: {
        type: 'object',
        additionalProperties: false,
        required: ['day'],
        properties: {
          day: { type: 'array', items: { minItems: 1, maxItems: 7, $ref: './Schema_GeoZoneDataTypes.json#/definitions/weekDayType' } },
          startTime: { type: 'string', format: 'time' },
          startEvent: { $ref: './Schema_GeoZoneDataTypes.json#/definitions/daylightEventType' },
          endTime: { type: 'string', format: 'time' },
          endEvent: { $ref: './Schema_GeoZoneDataTypes.json#/definitions/daylightEventType' },
        },
      },
    },
    properties: {
      startDateTime: { type: 'string', format: 'date-time' },
      endDateTime: { type: 'string', format: 'date-time' },
      schedule: { type: 'array', items: { minItems: 1, $ref: '#/definitions/dailyPeriod' } },
    },
    additionalProperties: false,
    required: [],
  },
  'Schema_GeoZones.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'GeoJSON FeatureCollection',
    type: 'object',
    required: ['type', 'features'],
    properties: {
      type: { type: 'string', enum: ['FeatureCollection'] },
      name: { type: 'string', maxLength: 200 },
      bbox: { type: 'array', minItems: 4, items: { type: 'number' } },
      metadata: { $ref: './Schema_GeoZoneCollectionMetadata.json' },
      features: {
        type: 'array',
        items: {
          title: 'GeoJSON Feature',
          type: 'object',
          required: ['type', 'properties', 'geometry'],
          properties: {
            type: { type: 'string', enum: ['Feature'] },
            id: { oneOf: [{ type: 'number' }, { type: 'string' }] },
            properties: { oneOf: [{ type: 'null' }, { $ref: './Schema_GeoZoneProperties.json' }] },
            geometry: { oneOf: [{ type: 'null' }, { $ref: './Schema_GeoJSONGeometries.json' }] },
            bbox: { type: 'array', minItems: 4, items: { type: 'number' } },
          },
        },
      },
    },
  },
  'Schema_LayeredGeoJSON.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'LayeredGeoJSON members',
    description: 'A vertical layer extent for all standard GeoJSON geometries',
    type: 'object',
    definitions: {
      verticalReference: {
        description:
          'A code indicating a vertical reference system. Allowed values:\nAGL = Above ground level (or above water surface, as applicable)\nAMSL = Above Mean Sea Level\nWGS84 = Above the surface of the WGS-84 ellipsoid (Ellipsoidal height)',
        type: 'string',
        enum: ['AGL', 'AMSL', 'WGS84'],
      },
    },
    properties: {
      layer: {
        type: 'object',
        properties: {
          upper: {
            description:
              'The value of the upper limit of the airspace layer expressed in metres (m) or feet (ft), in relation with the vertical datum specified in the upperReference property. A positive value is interpreted as meaning "above" the reference surface.',
            type: 'number',
          },
          upperReference: { $ref: '#/definitions/verticalReference' },
          lower: {
            description:
              'The value of the lower limit of the airspace layer expressed in metres (m) or feet (ft), in relation with the vertical datum specified in the lowerReference property. A positive value is interpreted as meaning "above" the reference surface.',
            type: 'number',
          },
          lowerReference: { $ref: '#/definitions/verticalReference' },
          uom: {
            description:
              'The unit of measurement in which the upper and lower values are expressed. Allowable values:\nm = metres\nft = feet\nIf this member is not specified, the units should be assumed to be metres.',
            type: 'string',
            enum: ['m', 'ft'],
            default: 'm',
          },
        },
      },
    },
  },
};

export const ED318_ROOT_SCHEMA = 'Schema_GeoZones.json';
