// The `type` query parameter of GET /dns/:domain (docs/api.md): six types, case-insensitive.
import { AppError } from '../../kit/errors.js';

export const RECORD_TYPES = ['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME'] as const;

export type RecordType = (typeof RECORD_TYPES)[number];

const BY_UPPER = new Map<string, RecordType>(RECORD_TYPES.map((t) => [t, t]));

/** undefined (parameter absent) → A; anything outside the six → AppError INVALID_TYPE. */
export function parseRecordType(text: string | undefined): RecordType {
  if (text === undefined) return 'A';
  const type = BY_UPPER.get(text.trim().toUpperCase());
  if (type === undefined) {
    const shown = text.length > 20 ? `${text.slice(0, 20)}…` : text;
    throw new AppError(
      'INVALID_TYPE',
      `"${shown}" is not a supported record type; use one of ${RECORD_TYPES.join(', ')}`,
    );
  }
  return type;
}
