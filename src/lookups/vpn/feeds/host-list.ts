// Collects the server addresses a provider's list names, one field at a time.
// A missing or empty field is normal (NordVPN's `ipv6_station: ""`, a bridge's
// `ipv6_addr_in: null`); a field of the wrong type or a text that is no
// address means the document is not what the parser expects, so the whole
// feed is refused. Special-purpose addresses (tunnel-internal gateways such as
// Mullvad's 10.64.0.1) are dropped: they are nobody's public server.
import { parseIp } from '../../../net/ip.js';
import { isBogon } from '../../geoip/bogons.js';
import { FeedFormatError, type ParsedFeed } from './feed-types.js';
import { requireNonEmpty } from './feed-validate.js';
import { normalisePublished } from './published-date.js';

export class HostList {
  private readonly feed: string;
  /** prefix → provider id ('' when the feed names none); the first service named wins */
  private readonly hosts = new Map<string, string>();

  constructor(feed: string) {
    this.feed = feed;
  }

  get size(): number {
    return this.hosts.size;
  }

  /** One address field; undefined, null and "" are skipped. */
  add(value: unknown, where: string, provider = ''): void {
    if (value === undefined || value === null || value === '') return;
    if (typeof value !== 'string') {
      throw new FeedFormatError(this.feed, `${where}: address is not a string`);
    }
    const ip = parseIp(value.trim());
    if (ip === null) throw new FeedFormatError(this.feed, `${where}: not an IP address`);
    if (isBogon(ip)) return;
    const prefix = ip.version === 4 ? `${ip.text}/32` : `${ip.text}/128`;
    if (!this.hosts.has(prefix)) this.hosts.set(prefix, provider);
  }

  /** An optional array of address fields. */
  addAll(values: unknown, where: string, provider = ''): void {
    if (values === undefined || values === null) return;
    if (!Array.isArray(values)) throw new FeedFormatError(this.feed, `${where} is not an array`);
    values.forEach((v, i) => this.add(v, `${where}[${i}]`, provider));
  }

  /** The parsed feed; `withProviders` keeps the per-address service (mixed lists). */
  finish(publishedAt: string | null, withProviders = false): ParsedFeed {
    const prefixes = [...this.hosts.keys()];
    requireNonEmpty(this.feed, prefixes);
    const parsed = { feed: this.feed, prefixes, publishedAt: normalisePublished(publishedAt) };
    return withProviders ? { ...parsed, providers: [...this.hosts.values()] } : parsed;
  }
}
