// Tool schemas every agent client accepts. zod writes a nullable field as
// `type: ["string", "null"]`: legal JSON Schema (draft-07 §6.1.1), but clients
// that map tool schemas onto a single-`type` dialect (the OpenAPI subset of
// Gemini function declarations, some IDE agents) reject such a tool or drop
// the constraint, and the MCP Inspector's --strict check warns on it. An
// array of types means exactly "any one of these types", so each becomes
// `anyOf` branches of one `type` each, the node's other keywords kept beside
// them (they applied to every type before, and still do).
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

type Schema = Record<string, unknown>;

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'] as const;
const SUBSCHEMA_LISTS = ['anyOf', 'allOf', 'oneOf', 'prefixItems'] as const;
const SUBSCHEMAS = ['items', 'additionalProperties', 'not', 'contains', 'if', 'then', 'else'];

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A copy of `schema` where no `type` is an array. */
export function portableSchema(schema: unknown): unknown {
  if (!isSchema(schema)) return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SUBSCHEMA_MAPS.includes(key as (typeof SUBSCHEMA_MAPS)[number]) && isSchema(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, portableSchema(sub)]),
      );
    } else if (
      SUBSCHEMA_LISTS.includes(key as (typeof SUBSCHEMA_LISTS)[number]) &&
      Array.isArray(value)
    ) {
      out[key] = value.map(portableSchema);
    } else if (SUBSCHEMAS.includes(key)) {
      out[key] = Array.isArray(value) ? value.map(portableSchema) : portableSchema(value);
    } else {
      out[key] = value;
    }
  }
  const type = out['type'];
  if (!Array.isArray(type)) return out;
  delete out['type'];
  const branches = type.map((t: unknown) => ({ type: t }));
  // an anyOf already there (rare) must hold as well: both go under allOf
  if (out['anyOf'] === undefined) out['anyOf'] = branches;
  else out['allOf'] = [...((out['allOf'] as unknown[] | undefined) ?? []), { anyOf: branches }];
  return out;
}

/** A tools/list response with portable input and output schemas; any other message as it is. */
export function portableToolList(message: JSONRPCMessage): JSONRPCMessage {
  if (!('result' in message) || !Array.isArray(message.result['tools'])) return message;
  const tools = (message.result['tools'] as Schema[]).map((tool) => {
    const copy: Schema = { ...tool };
    if (tool['inputSchema'] !== undefined)
      copy['inputSchema'] = portableSchema(tool['inputSchema']);
    if (tool['outputSchema'] !== undefined) {
      copy['outputSchema'] = portableSchema(tool['outputSchema']);
    }
    return copy;
  });
  return { ...message, result: { ...message.result, tools } };
}
