// What makes a tool schema non-portable across agent clients, as the MCP
// Inspector's `--strict` lint (v2.12) reports it, written here from its
// rules: a `type` given as an array; a bare `true`/`false` where a schema
// object is expected; a `$ref` outside the document; a (sub)schema with no
// validating keyword at all, which accepts anything. Every finding is a
// path and a reason, so a failing test names the field to fix.

type Schema = Record<string, unknown>;

/** Keywords whose value may be a plain boolean (additional items/properties allowed or not). */
const BOOLEAN_OK = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
]);
const MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SINGLE = [
  'items',
  'contains',
  'not',
  'propertyNames',
  'if',
  'then',
  'else',
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
  'contentSchema',
];
/** Keywords that constrain a value (JSON Schema 2020-12 validation and applicators). */
const VALIDATING = new Set([
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'items',
  'prefixItems',
  'contains',
  'additionalItems',
  'unevaluatedItems',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'dependentSchemas',
  'dependencies',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
]);

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every portability problem of `schema`, as "path: reason". */
export function portabilityFindings(schema: unknown, path = ''): string[] {
  const findings: string[] = [];
  visit(schema, path, undefined, findings);
  return findings;
}

function visit(node: unknown, path: string, keyword: string | undefined, out: string[]): void {
  if (typeof node === 'boolean') {
    if (keyword === undefined || !BOOLEAN_OK.has(keyword)) {
      out.push(`${path || '(root)'}: bare ${String(node)} where a schema object is expected`);
    }
    return;
  }
  if (!isSchema(node)) return;
  const at = path || '(root)';
  if (Array.isArray(node['type']))
    out.push(`${at}: type is an array ${JSON.stringify(node['type'])}`);
  const ref = node['$ref'];
  if (typeof ref === 'string' && ref !== '' && !ref.startsWith('#')) {
    out.push(`${at}: $ref outside the document (${ref})`);
  }
  const validates =
    Object.keys(node).some((key) => VALIDATING.has(key)) ||
    ('if' in node && ('then' in node || 'else' in node));
  if (!validates && keyword !== 'not') out.push(`${at}: no validating keyword (accepts anything)`);
  for (const key of MAPS) {
    const map = node[key];
    if (!isSchema(map)) continue;
    for (const [name, sub] of Object.entries(map)) visit(sub, `${path}.${key}.${name}`, key, out);
  }
  for (const key of LISTS) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((sub, i) => visit(sub, `${path}.${key}[${i}]`, key, out));
  }
  for (const key of SINGLE) {
    if (!(key in node)) continue;
    const sub = node[key];
    if (key === 'items' && Array.isArray(sub)) {
      sub.forEach((item, i) => visit(item, `${path}.items[${i}]`, key, out));
    } else {
      visit(sub, `${path}.${key}`, key, out);
    }
  }
}

/** Findings over every tool of a tools/list answer, input and output schemas alike. */
export function toolSchemaFindings(
  tools: readonly { name: string; inputSchema?: unknown; outputSchema?: unknown }[],
): string[] {
  return tools.flatMap((tool) => [
    ...(tool.inputSchema === undefined
      ? []
      : portabilityFindings(tool.inputSchema, `${tool.name}.inputSchema`)),
    ...(tool.outputSchema === undefined
      ? []
      : portabilityFindings(tool.outputSchema, `${tool.name}.outputSchema`)),
  ]);
}
