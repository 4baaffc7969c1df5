// The range list written for the tool that loads it: one CIDR a line, JSON,
// an nftables set per family, ipset restore lines, an nginx `geo` block, an
// iptables-restore (or ip6tables-restore) chain. Each is written as the
// blocks are found: a head, one line per block, a family's end, a tail.
// Pure text; the names given are checked by the caller (NAME below).

export const RANGE_FORMATS = ['plain', 'json', 'nftables', 'ipset', 'nginx', 'iptables'] as const;
export type RangeFormat = (typeof RANGE_FORMATS)[number];

/** A set, variable or chain name every tool takes (nft, ipset ≤ 31, iptables ≤ 28 characters). */
export const NAME = /^[A-Za-z][A-Za-z0-9_]{0,23}$/;
export const DEFAULT_NAME = 'ipintel';

export interface RangeWriter {
  readonly contentType: string;
  head(): string;
  familyStart(version: 4 | 6): string;
  /** a block's line; `first`: the family's first block */
  block(version: 4 | 6, cidr: string, first: boolean): string;
  /** `count`: the family's blocks */
  familyEnd(version: 4 | 6, count: number): string;
  /** `count`: all blocks */
  tail(count: number): string;
}

const TEXT = 'text/plain; charset=utf-8';

/** ipset's ceiling per set: above the largest list of the embedded data (docs/api.md) */
export const IPSET_MAX_ELEMENTS = 4_194_304;

export interface WriterOptions {
  format: RangeFormat;
  /** the set, variable or chain name (NAME) */
  name: string;
  families: readonly (4 | 6)[];
  /** the filter, for the JSON answer */
  filter: Readonly<Record<string, string>>;
}

const nothing = (): string => '';

export function rangeWriter(o: WriterOptions): RangeWriter {
  const name = o.name;
  const setName = (v: 4 | 6) => `${name}_v${v}`;
  // the JSON writer's one piece of state: IPv6's first block follows IPv4's last
  let started = false;
  switch (o.format) {
    case 'plain':
      return {
        contentType: TEXT,
        head: nothing,
        familyStart: nothing,
        block: (_v, cidr) => `${cidr}\n`,
        familyEnd: nothing,
        tail: nothing,
      };
    case 'json':
      return {
        contentType: 'application/json; charset=utf-8',
        head: () => `{"data":{"filter":${JSON.stringify(o.filter)},"ranges":[`,
        familyStart: nothing,
        block: (_v, cidr) => `${started ? ',' : ((started = true), '')}"${cidr}"`,
        familyEnd: nothing,
        tail: (count) => `],"count":${count}}}`,
      };
    case 'nftables':
      return {
        contentType: TEXT,
        head: () => `table inet ${name} {\n`,
        familyStart: (v) =>
          `\tset ${setName(v)} {\n\t\ttype ipv${v}_addr\n\t\tflags interval\n\t\tauto-merge\n`,
        block: (_v, cidr, first) => `${first ? '\t\telements = {\n\t\t\t' : ',\n\t\t\t'}${cidr}`,
        familyEnd: (_v, count) => `${count > 0 ? '\n\t\t}\n' : ''}\t}\n`,
        tail: () => '}\n',
      };
    case 'ipset':
      return {
        contentType: TEXT,
        head: () =>
          o.families
            .map(
              (v) =>
                `create ${setName(v)} hash:net family inet${v === 6 ? '6' : ''} maxelem ${IPSET_MAX_ELEMENTS}\n`,
            )
            .join(''),
        familyStart: nothing,
        block: (v, cidr) => `add ${setName(v)} ${cidr}\n`,
        familyEnd: nothing,
        tail: nothing,
      };
    case 'nginx':
      return {
        contentType: TEXT,
        head: () => `geo $${name} {\n\tdefault 0;\n`,
        familyStart: nothing,
        block: (_v, cidr) => `\t${cidr} 1;\n`,
        familyEnd: nothing,
        tail: () => '}\n',
      };
    case 'iptables':
      return {
        contentType: TEXT,
        head: () => `*filter\n:${name} - [0:0]\n`,
        familyStart: nothing,
        block: (_v, cidr) => `-A ${name} -s ${cidr} -j DROP\n`,
        familyEnd: nothing,
        tail: () => 'COMMIT\n',
      };
  }
}
