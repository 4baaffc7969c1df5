// Scoring the detector against resources/labelled-addresses.csv: real
// addresses labelled with what they truly are. Shared by
// scripts/eval-detection.ts (with whatever feeds DATA_DIR holds) and the
// labelled-addresses test (embedded data only), so both score the same way.
// Pure: the caller reads the file and supplies the classifier.
import type { AsnInfo } from '../../src/lookups/geoip/record-map.js';
import { eachTableRow } from '../../src/lookups/geoip/asn-csv.js';
import { parseIp, type Ip } from '../../src/net/ip.js';
import { detect, type DetectionIndex, type VpnDetection } from '../../src/lookups/vpn/detect.js';

export const FLAGS = ['isVpn', 'isProxy', 'isHosting', 'isMobile'] as const;
export type Flag = (typeof FLAGS)[number];
export type Flags = Record<Flag, boolean>;

export const CATEGORIES = ['cloud', 'vpn', 'tor', 'mobile', 'residential', 'business'] as const;
export type Category = (typeof CATEGORIES)[number];

export interface LabelledAddress {
  readonly ip: Ip;
  readonly category: Category;
  /** the truth about the address, not what the detector says */
  readonly expected: Flags;
  readonly note: string;
  /** 1-based line in the file, for messages */
  readonly line: number;
}

const HEADER = 'ip,category,isVpn,isProxy,isHosting,isMobile,note';

function isCategory(value: string): value is Category {
  return (CATEGORIES as readonly string[]).includes(value);
}

function bool(text: string | undefined, where: string, column: string): boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw new Error(`${where}: ${column} must be true or false, got ${JSON.stringify(text ?? '')}`);
}

/** Strict, like the ASN class file: the labels are ours, so a bad row fails loudly. */
export function parseLabelledAddresses(text: string): LabelledAddress[] {
  const rows: LabelledAddress[] = [];
  const seen = new Set<string>();
  eachTableRow(text, 'labelled-addresses.csv', HEADER, 7, (fields, where, line) => {
    const [ipText = '', category = '', vpn, proxy, hosting, mobile, note = ''] = fields;
    const ip = parseIp(ipText);
    if (ip === null) throw new Error(`${where}: bad address ${JSON.stringify(ipText)}`);
    if (!isCategory(category))
      throw new Error(`${where}: bad category ${JSON.stringify(category)}`);
    if (seen.has(ip.text)) throw new Error(`${where}: ${ip.text} listed twice`);
    seen.add(ip.text);
    rows.push({
      ip,
      category,
      expected: {
        isVpn: bool(vpn, where, 'isVpn'),
        isProxy: bool(proxy, where, 'isProxy'),
        isHosting: bool(hosting, where, 'isHosting'),
        isMobile: bool(mobile, where, 'isMobile'),
      },
      note,
      line,
    });
  });
  return rows;
}

/** What GET /ip/:ip/vpn does (src/routes/vpn-routes.ts): no ASN lookup for special-purpose space. */
export function routeDetector(
  asnOf: (ip: Ip) => AsnInfo | null,
  index: DetectionIndex,
): (ip: Ip) => VpnDetection {
  return (ip) => detect(ip, asnOf, index);
}

export interface FlagScore {
  readonly truePositives: number;
  readonly falsePositives: number;
  readonly falseNegatives: number;
  readonly trueNegatives: number;
  /** null when the detector never raised the flag (0/0) */
  readonly precision: number | null;
  /** null when no labelled address has the flag (0/0) */
  readonly recall: number | null;
}

export interface ScoredAddress {
  readonly label: LabelledAddress;
  readonly detection: VpnDetection;
  /** the flags where detector and label differ; empty when the row is right */
  readonly wrong: readonly Flag[];
}

export interface Evaluation {
  readonly rows: readonly ScoredAddress[];
  readonly scores: Readonly<Record<Flag, FlagScore>>;
}

const ratio = (num: number, den: number): number | null => (den === 0 ? null : num / den);

export function evaluate(
  labels: readonly LabelledAddress[],
  classify: (ip: Ip) => VpnDetection,
): Evaluation {
  const rows = labels.map((label) => {
    const detection = classify(label.ip);
    const wrong = FLAGS.filter((flag) => detection[flag] !== label.expected[flag]);
    return { label, detection, wrong };
  });
  const score = (flag: Flag): FlagScore => {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    let tn = 0;
    for (const { label, detection } of rows) {
      const want = label.expected[flag];
      const got = detection[flag];
      if (want && got) tp++;
      else if (got) fp++;
      else if (want) fn++;
      else tn++;
    }
    return {
      truePositives: tp,
      falsePositives: fp,
      falseNegatives: fn,
      trueNegatives: tn,
      precision: ratio(tp, tp + fp),
      recall: ratio(tp, tp + fn),
    };
  };
  return {
    rows,
    scores: {
      isVpn: score('isVpn'),
      isProxy: score('isProxy'),
      isHosting: score('isHosting'),
      isMobile: score('isMobile'),
    },
  };
}

export function countByCategory(labels: readonly LabelledAddress[]): Record<Category, number> {
  const counts = Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Record<Category, number>;
  for (const label of labels) counts[label.category]++;
  return counts;
}
