// Port-43 answers as objects of `key: value` lines (RFC 2622 §2 for RPSL;
// ARIN and LACNIC use the same line shape). Objects are separated by blank
// lines and `%`/`#` comment lines; a line starting with whitespace or `+`
// continues the previous value (RFC 2622 §2).

export interface WhoisObject {
  /** position in the answer, so callers can find "the org block after the net" */
  readonly index: number;
  readonly attributes: readonly (readonly [key: string, value: string])[];
}

// a whois answer has a few hundred lines; this bounds work on hostile input
const MAX_LINES = 20_000;

export function parseObjects(answer: string): WhoisObject[] {
  const objects: WhoisObject[] = [];
  let current: [string, string][] = [];
  const close = () => {
    if (current.length > 0) objects.push({ index: objects.length, attributes: current });
    current = [];
  };
  for (const rawLine of answer.split(/\r?\n|\r/).slice(0, MAX_LINES)) {
    const line = rawLine.replace(/\s+$/, '');
    if (line === '' || line.startsWith('%') || line.startsWith('#')) {
      close();
      continue;
    }
    const last = current.at(-1);
    if (/^[ \t+]/.test(line)) {
      if (last !== undefined) last[1] = `${last[1]} ${line.replace(/^[ \t+]+/, '')}`.trim();
      continue;
    }
    const match = /^([A-Za-z][\w-]*):(.*)$/.exec(line);
    if (match !== null) current.push([(match[1] ?? '').toLowerCase(), (match[2] ?? '').trim()]);
  }
  close();
  return objects;
}

/** The first non-empty value of a key, or null. */
export function first(object: WhoisObject, key: string): string | null {
  for (const [k, v] of object.attributes) if (k === key && v !== '') return v;
  return null;
}

export function all(object: WhoisObject, key: string): string[] {
  return object.attributes.filter(([k, v]) => k === key && v !== '').map(([, v]) => v);
}

/** The object's class: its first key (`inetnum`, `organisation`, `role`…). */
export function classOf(object: WhoisObject): string | null {
  return object.attributes[0]?.[0] ?? null;
}
