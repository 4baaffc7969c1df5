// Who holds the network, from RDAP entities (RFC 9083 §5.1, roles from the
// IANA "RDAP JSON Values" registry). The rules (docs/api.md, "Records", Whois)
// that hold for every registry's recorded answers:
//   1. the fn of a `registrant` entity with a vCard, skipping maintainers
//      (`*-MNT`, which RIPE also tags `registrant`);
//   2. a registrant given only by handle (RIPE): fetch that entity once, and
//      if that fails use the handle when it is an ORG- object;
//   3. an entity whose vCard kind is `org` (AFRINIC 2015 had no roles);
//   4. null.
import { hasVcard, vcardText } from './jcard.js';
import { list, records, text } from './json-shape.js';

// nesting deeper than this, or more entities than this, is not a registry answer
const MAX_DEPTH = 4;
const MAX_ENTITIES = 500;

export interface RegistrantChoice {
  /** the best name found without another request */
  name: string | null;
  /** a handle whose entity record should be fetched to find a better name */
  fetchHandle: string | null;
  /** the entity the name came from, for its vCard address (docs/api.md, "Records", Whois) */
  entity: Record<string, unknown> | null;
}

/** Every entity, breadth-first: top-level ones before those nested inside them. */
export function allEntities(network: Record<string, unknown>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let level = records(network.entities);
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
    const next: Record<string, unknown>[] = [];
    for (const entity of level) {
      if (out.length >= MAX_ENTITIES) return out;
      out.push(entity);
      next.push(...records(entity.entities));
    }
    level = next;
  }
  return out;
}

function hasRole(entity: Record<string, unknown>, role: string): boolean {
  return list(entity.roles).some((r) => typeof r === 'string' && r.toLowerCase() === role);
}

function isMaintainer(handle: string | null): boolean {
  return handle !== null && /-MNT$/i.test(handle);
}

export function chooseRegistrant(network: Record<string, unknown>): RegistrantChoice {
  const entities = allEntities(network);
  const registrants = entities.filter(
    (e) => hasRole(e, 'registrant') && !isMaintainer(text(e.handle)),
  );
  for (const entity of registrants) {
    const fn = vcardText(entity, 'fn');
    if (fn !== null) return { name: fn, fetchHandle: null, entity };
  }
  const orgKind = entities.find((e) => vcardText(e, 'kind')?.toLowerCase() === 'org');
  const orgKindName = orgKind === undefined ? null : vcardText(orgKind, 'fn');
  const bare = registrants.filter((e) => !hasVcard(e) && text(e.handle) !== null);
  const chosen = bare.find((e) => /^ORG-/i.test(text(e.handle) ?? '')) ?? bare[0];
  if (chosen !== undefined) {
    const handle = text(chosen.handle);
    const byHandle = handle !== null && /^ORG-/i.test(handle) ? handle : null;
    return { name: byHandle ?? orgKindName, fetchHandle: handle, entity: null };
  }
  return { name: orgKindName, fetchHandle: null, entity: orgKind ?? null };
}

/** The fn of a fetched entity record (`GET <base>entity/<handle>`), or null. */
export function entityName(json: unknown): string | null {
  const [entity] = records([json]);
  return entity === undefined ? null : vcardText(entity, 'fn');
}

export function abuseEmail(network: Record<string, unknown>): string | null {
  for (const entity of allEntities(network)) {
    if (!hasRole(entity, 'abuse')) continue;
    const email = vcardText(entity, 'email');
    if (email !== null && /^[^\s@]+@[^\s@]+$/.test(email)) return email;
  }
  return null;
}
