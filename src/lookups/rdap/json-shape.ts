// Narrowing helpers for untrusted JSON: every RDAP member is checked before
// use, so a hostile or buggy registry answer yields null, never a throw.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty trimmed string, else null. */
export function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

export function records(value: unknown): Record<string, unknown>[] {
  return list(value).filter(isRecord);
}
