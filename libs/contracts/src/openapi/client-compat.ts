/**
 * Rewrites of the TypeBox-made JSON Schema that keep validation the same but
 * read well in client generators (openapi-python-client, OpenAPI Generator,
 * hey-api): they run on the path items before schemas are hoisted into
 * components. What each one fixes was found by generating clients and using
 * them for the whole walkthrough (issue 11).
 */
type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy of `value` (TypeBox's symbol keys dropped) with every rewrite applied bottom-up. */
export function forClientGenerators(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(forClientGenerators);
  if (!isObject(value)) return value;
  const copy: Json = {};
  for (const [key, child] of Object.entries(value)) copy[key] = forClientGenerators(child);
  return mergedAllOf(nullableType(stringEnum(copy)));
}

/** `anyOf` of string `const`s (TypeBox's union of literals) → `type: string` + `enum`. */
function stringEnum(schema: Json): Json {
  const members = schema['anyOf'];
  if (!Array.isArray(members) || members.length === 0) return schema;
  const values: unknown[] = [];
  for (const member of members) {
    if (!isObject(member) || member['type'] !== 'string') return schema;
    if (typeof member['const'] === 'string') values.push(member['const']);
    else if (Array.isArray(member['enum'])) values.push(...(member['enum'] as unknown[]));
    else return schema;
  }
  const { anyOf: _members, ...rest } = schema;
  return { ...rest, type: 'string', enum: [...new Set(values)] };
}

/** `anyOf: [<simple type>, {type: null}]` → one schema whose type also allows null. */
function nullableType(schema: Json): Json {
  const members = schema['anyOf'];
  if (!Array.isArray(members) || members.length !== 2) return schema;
  const nulls = members.filter((member) => isObject(member) && member['type'] === 'null' && Object.keys(member).length === 1);
  const others: unknown[] = members.filter((member) => !nulls.includes(member));
  const [value] = others;
  if (nulls.length !== 1 || !isObject(value) || typeof value['type'] !== 'string' || '$id' in value || value['type'] === 'object') {
    return schema;
  }
  const { anyOf: _members, ...rest } = schema;
  const enumValues = Array.isArray(value['enum']) ? { enum: [...(value['enum'] as unknown[]), null] } : {};
  return { ...rest, ...value, type: [value['type'], 'null'], ...enumValues };
}

/**
 * `allOf` of object schemas (TypeBox's Intersect) → one object schema: OpenAPI
 * Generator loses the `null` of nullable members when it merges them itself.
 */
function mergedAllOf(schema: Json): Json {
  const members = schema['allOf'];
  if (!Array.isArray(members) || !members.every((member) => isObject(member) && member['type'] === 'object')) return schema;
  const properties: Json = {};
  const required: string[] = [];
  for (const member of members as Json[]) {
    Object.assign(properties, member['properties']);
    for (const name of (member['required'] as string[] | undefined) ?? []) if (!required.includes(name)) required.push(name);
  }
  const { allOf: _members, unevaluatedProperties: _unevaluated, ...rest } = schema;
  return { ...rest, type: 'object', properties, required };
}

/**
 * Request bodies: a `default` makes generators type the field as required
 * ("exemption_for_ctr" must be sent), though the service fills it in. The
 * default moves into the description.
 */
export function withoutDefaults(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDefaults);
  if (!isObject(value)) return value;
  const copy: Json = {};
  for (const [key, child] of Object.entries(value)) if (key !== 'default') copy[key] = withoutDefaults(child);
  if ('default' in value) {
    const note = `Defaults to ${JSON.stringify(value['default'])}.`;
    copy['description'] = typeof value['description'] === 'string' ? `${value['description']}; ${note}` : note;
  }
  return copy;
}
