// A small JSON Schema (2020-12) validator for the keywords the OpenAPI
// document uses, written apart from zod so that live responses are checked
// against the published document, not against the code that produced it.
// An unknown keyword is an error: a schema this validator does not
// understand must not pass silently.

type Schema = Record<string, unknown> | boolean;

const ANNOTATIONS = new Set([
  'description',
  'examples',
  'title',
  'default',
  'id',
  '$schema',
  'deprecated',
  'readOnly',
  'format',
]);

export class SchemaValidator {
  constructor(private readonly components: Record<string, unknown>) {}

  /** Problems found, as "path: problem"; empty when the value is valid. */
  validate(schema: unknown, value: unknown, path = '$'): string[] {
    if (schema === true) return [];
    if (schema === false) return [`${path}: no value is allowed`];
    if (typeof schema !== 'object' || schema === null) return [`${path}: bad schema`];
    const s = schema as Record<string, unknown>;
    const problems: string[] = [];
    for (const [keyword, arg] of Object.entries(s)) {
      if (ANNOTATIONS.has(keyword)) continue;
      problems.push(...this.keyword(keyword, arg, s, value, path));
    }
    return problems;
  }

  private keyword(
    keyword: string,
    arg: unknown,
    s: Record<string, unknown>,
    value: unknown,
    path: string,
  ): string[] {
    switch (keyword) {
      case '$ref': {
        const ref = arg as string;
        const prefix = '#/components/schemas/';
        if (!ref.startsWith(prefix)) return [`${path}: unsupported $ref ${ref}`];
        const target = this.components[ref.slice(prefix.length)];
        if (target === undefined) return [`${path}: dangling $ref ${ref}`];
        return this.validate(target, value, path);
      }
      case 'type': {
        const types = Array.isArray(arg) ? (arg as string[]) : [arg as string];
        return types.some((t) => hasType(value, t))
          ? []
          : [`${path}: ${JSON.stringify(value)?.slice(0, 60)} is not ${types.join('|')}`];
      }
      case 'enum':
        return (arg as unknown[]).some((e) => JSON.stringify(e) === JSON.stringify(value))
          ? []
          : [`${path}: not one of the enum`];
      case 'const':
        return JSON.stringify(arg) === JSON.stringify(value) ? [] : [`${path}: not the constant`];
      case 'anyOf':
        return (arg as Schema[]).some((sub) => this.validate(sub, value, path).length === 0)
          ? []
          : [`${path}: matches no anyOf branch`];
      case 'oneOf':
        return (arg as Schema[]).filter((sub) => this.validate(sub, value, path).length === 0)
          .length === 1
          ? []
          : [`${path}: must match exactly one oneOf branch`];
      case 'allOf':
        return (arg as Schema[]).flatMap((sub) => this.validate(sub, value, path));
      case 'properties': {
        if (!isObject(value)) return [];
        return Object.entries(arg as Record<string, Schema>).flatMap(([name, sub]) =>
          name in value ? this.validate(sub, value[name], `${path}.${name}`) : [],
        );
      }
      case 'required':
        if (!isObject(value)) return [];
        return (arg as string[])
          .filter((name) => !(name in value))
          .map((name) => `${path}: missing ${name}`);
      case 'additionalProperties': {
        if (!isObject(value)) return [];
        const known = new Set(Object.keys(s['properties'] ?? {}));
        const extra = Object.keys(value).filter((k) => !known.has(k));
        return extra.flatMap((k) => this.validate(arg, value[k], `${path}.${k}`));
      }
      case 'propertyNames':
        return isObject(value)
          ? Object.keys(value).flatMap((k) => this.validate(arg, k, `${path}[key ${k}]`))
          : [];
      case 'items':
        return Array.isArray(value)
          ? value.flatMap((item, i) => this.validate(arg, item, `${path}[${i}]`))
          : [];
      case 'minItems':
        return Array.isArray(value) && value.length < (arg as number)
          ? [`${path}: too few items`]
          : [];
      case 'maxItems':
        return Array.isArray(value) && value.length > (arg as number)
          ? [`${path}: too many items`]
          : [];
      case 'pattern':
        return typeof value === 'string' && !new RegExp(arg as string, 'u').test(value)
          ? [`${path}: ${value} does not match ${String(arg)}`]
          : [];
      case 'minLength':
        return typeof value === 'string' && [...value].length < (arg as number)
          ? [`${path}: too short`]
          : [];
      case 'maxLength':
        return typeof value === 'string' && [...value].length > (arg as number)
          ? [`${path}: too long`]
          : [];
      case 'minimum':
        return typeof value === 'number' && value < (arg as number)
          ? [`${path}: below minimum`]
          : [];
      case 'maximum':
        return typeof value === 'number' && value > (arg as number)
          ? [`${path}: above maximum`]
          : [];
      case 'exclusiveMinimum':
        return typeof value === 'number' && value <= (arg as number)
          ? [`${path}: not above exclusiveMinimum`]
          : [];
      case 'exclusiveMaximum':
        return typeof value === 'number' && value >= (arg as number)
          ? [`${path}: not below exclusiveMaximum`]
          : [];
      default:
        return [`${path}: unsupported keyword ${keyword}`];
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      return false;
  }
}
