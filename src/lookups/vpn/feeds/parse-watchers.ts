// Parsers for the provider-list watchers: community repositories that poll a
// VPN provider's own API on a schedule and commit it rendered as a Markdown
// table (scriptzteam's AirVPNWatch, AzireVPNWatch, MullvadWatch,
// PrivateInternetAccessWatch, WindscribeWatch). Cells are space-padded to
// different widths per file, a row may carry more cells than the header
// (WindscribeWatch's two empty trailing ones), and multi-address cells are
// joined by ", " (AirVPN) or a space (AzireVPN's DNS answers).
import { FeedFormatError, type FeedParser } from './feed-types.js';
import { HostList } from './host-list.js';
import { parseIp } from '../../../net/ip.js';
import { geofeedSkipBound } from './parse-text-lists.js';

export interface MarkdownTable {
  readonly header: readonly string[];
  /** each row's cells, trimmed, at least as many as the header */
  readonly rows: readonly (readonly string[])[];
}

function cellsOf(line: string): string[] {
  const cells = line.trim().split('|');
  // "| a | b |" → ["", " a ", " b ", ""]: the outer pipes' empty sides go
  return cells.slice(1, cells.at(-1)?.trim() === '' ? -1 : undefined).map((c) => c.trim());
}

/**
 * The first Markdown table of a document: its header, the `|---|` separator,
 * then rows up to the first line that is no table row. A row shorter than the
 * header means the table was cut or is not what the parser expects: refused.
 */
export function parseMarkdownTable(body: string, feed: string): MarkdownTable {
  const lines = body.replace(/^\uFEFF/, '').split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim().startsWith('|'));
  if (start === -1) throw new FeedFormatError(feed, 'no Markdown table found');
  const header = cellsOf(lines[start]!);
  const separator = cellsOf(lines[start + 1] ?? '');
  if (separator.length === 0 || !separator.every((c) => /^:?-{2,}:?$/.test(c))) {
    throw new FeedFormatError(feed, `line ${start + 2}: no |---| separator under the header`);
  }
  const rows: string[][] = [];
  for (let i = start + 2; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line.startsWith('|')) break;
    const cells = cellsOf(line);
    if (cells.length < header.length) {
      throw new FeedFormatError(
        feed,
        `line ${i + 1}: ${cells.length} cells, the header has ${header.length}`,
      );
    }
    rows.push(cells);
  }
  if (rows.length === 0) throw new FeedFormatError(feed, 'the table has no rows');
  return { header, rows };
}

export interface WatcherColumns {
  /** header cells whose values are server addresses */
  readonly addresses: readonly string[];
  /** rows kept: the header cell and the values it may hold (others are not exits) */
  readonly only?: { readonly column: string; readonly values: readonly string[] };
}

/**
 * A parser for one watcher's table. A cell holding a token that is no address
 * (a resolver's error text in a DNS answer cell) skips its row; more such rows
 * than 1 % (as for geofeeds) means the table is not what it was, and the whole
 * document is refused.
 */
export function watcherParser(columns: WatcherColumns): FeedParser {
  return (body, feed) => {
    const table = parseMarkdownTable(body, feed);
    const at = (name: string): number => {
      const i = table.header.indexOf(name);
      if (i === -1) throw new FeedFormatError(feed, `no column "${name}" in the table`);
      return i;
    };
    const addressAt = columns.addresses.map(at);
    const filterAt = columns.only === undefined ? -1 : at(columns.only.column);
    const hosts = new HostList(feed);
    let skipped = 0;
    table.rows.forEach((cells, r) => {
      if (filterAt !== -1 && !columns.only!.values.includes(cells[filterAt]!)) return;
      const tokens = addressAt.flatMap((i) => cells[i]!.split(/[,\s]+/).filter((t) => t !== ''));
      if (tokens.some((t) => parseIp(t) === null)) {
        skipped++;
        return;
      }
      tokens.forEach((t, k) => hosts.add(t, `row ${r + 1} address ${k + 1}`));
    });
    if (skipped > geofeedSkipBound(table.rows.length)) {
      throw new FeedFormatError(feed, `${skipped} of ${table.rows.length} rows hold no address`);
    }
    return { ...hosts.finish(null), ...(skipped > 0 ? { skippedRows: skipped } : {}) };
  };
}

/** AirVPN (api/status): four entry addresses per family and server, ", "-joined. */
export const parseAirVpnWatch = watcherParser({ addresses: ['IPv4 Addresses', 'IPv6 Addresses'] });
/** AzireVPN (v3/locations): the watcher's DNS answers for each pool name, space-joined. */
export const parseAzireVpnWatch = watcherParser({ addresses: ['IP(s)'] });
/** Mullvad (www/relays/all): WireGuard relays only; bridges are not exits. */
export const parseMullvadWatch = watcherParser({
  addresses: ['IPv4 Address', 'IPv6 Address'],
  only: { column: 'Type', values: ['wireguard'] },
});
/** PIA (vpninfo/servers/v6): the connection protocols; `meta` rows are PIA's API hosts. */
export const parsePiaWatch = watcherParser({
  addresses: ['Server IP'],
  only: { column: 'Protocol', values: ['wg', 'ovpnudp', 'ovpntcp', 'ikev2'] },
});
/** Windscribe (mob-v2): the group's ping address and the node's three. */
export const parseWindscribeWatch = watcherParser({ addresses: ['Ping IP', 'IP', 'IP2', 'IP3'] });
