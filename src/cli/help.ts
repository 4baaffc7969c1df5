// The `--help` texts of `ipintel` and each of its subcommands.

const ENVIRONMENT = `Configuration comes from the same environment variables as the service
(GEOIP_DB, ASN_DB, DATA_DIR, DNS_SERVERS, RDAP_BASE_URL, WHOIS_SERVER,
DNSBL_ZONES, ...; see docs/configuration.md).`;

const EXIT = `Exit status: 0 success; 1 the lookup failed (no record, NXDOMAIN, an
upstream error or timeout, unreadable data or input file); 2 usage (unknown
command or option, missing argument, or a value that is not an address,
domain, record type or range).`;

export const MAIN_HELP = `ipintel: IP intelligence from the command line, offline where the data is local.

Usage:
  ipintel [--json] <ip>...           GeoIP of addresses (readable summary, or JSON)
  ipintel vpn [--json] <ip>...       VPN / proxy / hosting / mobile detection
  ipintel whois [--json] <ip>...     registry (RDAP, whois fallback) record
  ipintel dns [--json] [--type T] <name>...  DNS records (A, AAAA, MX, TXT, NS, CNAME)
  ipintel reverse [--json] <ip>...   reverse DNS (PTR)
  ipintel blacklist [--json] <ip>... DNSBL check (IPv4)
  ipintel cidr [--json] <range>...   IPv4 or IPv6 CIDR calculation
  ipintel enrich [--vpn] [--format jsonl|csv] [FILE]
                                     the first address of each line, with its GeoIP record
  ipintel export --out DIR           the data as MMDB files (City, ASN, Anonymous IP) and CSV ranges
  ipintel ranges --country RU [--format nftables]
                                     the CIDR blocks matching a filter, for a firewall
  ipintel asn [--json] <asn>...      what an AS is: name, country, classes, prefixes
  ipintel serve                      start the HTTP service (as npm start)
  ipintel update-data [--only id,id] refresh the feeds, the RDAP bootstrap, GeoIP and ASN data

Options:
  --json       print the record as JSON (one line per argument)
  -h, --help   this help, or a subcommand's: ipintel enrich --help
  --version    the version

${ENVIRONMENT}

${EXIT}
`;

const LOOKUP_HELP: Record<string, string> = {
  ip: `Usage: ipintel [ip] [--json] <ip>...

GeoIP of each address from the local tables: country, region, city,
coordinates, time zone, AS number and organisation. --json prints the record
of GET /ip/:ip, one per line.`,
  vpn: `Usage: ipintel vpn [--json] <ip>...

VPN, proxy, Tor, relay, hosting and mobile flags with confidence and evidence, from
the ASN classification and the feeds in DATA_DIR (ipintel update-data).
--json prints the record of GET /ip/:ip/vpn.`,
  whois: `Usage: ipintel whois [--json] <ip>...

The registry record of the block holding each address (RDAP, port-43 whois
as the fallback). Asks the registry over the network (RDAP_BASE_URL,
WHOIS_SERVER). --json prints the record of GET /whois/:ip.`,
  dns: `Usage: ipintel dns [--json] [--type A|AAAA|MX|TXT|NS|CNAME] <name>...

DNS records of each name (default type A), from DNS_SERVERS or the system's
resolvers. --json prints the record of GET /dns/:domain.`,
  asn: `Usage: ipintel asn [--json] <asn>...

What each AS is (AS14061 or 14061): its name in the ASN data, where most of its
IPv4 addresses are, what detection makes of it, the prefixes the ASN data
routes through it and the feeds listing addresses there. --json prints the
record of GET /asn/:asn.`,
  reverse: `Usage: ipintel reverse [--json] <ip>...

PTR names of each address. --json prints the record of GET /dns/:ip/reverse.`,
  blacklist: `Usage: ipintel blacklist [--json] <ipv4>...

Each IPv4 address checked against the DNSBL_ZONES lists.
--json prints the record of GET /blacklist/:ip.`,
  cidr: `Usage: ipintel cidr [--json] <range>...

Network, masks and host counts of an IPv4 or IPv6 range (pure arithmetic, no
data loaded). --json prints the record of GET /cidr?range=.`,
};

export const ENRICH_HELP = `Usage: ipintel enrich [--vpn] [--format jsonl|csv] [FILE]

Reads FILE (or standard input) line by line, finds the first IPv4 or IPv6
address in each line (an access log, a CSV, a bare list) and writes one record
per input line to standard output, in input order:

  jsonl (default)  {"ip":…,<the GeoIP fields>,"line":"<the input line>"};
                   a line without an address gives "ip":null and null fields
  csv              a header, then ip,country,…,bogon,line (RFC 4180 quoting)

  --vpn            add the VPN record ("vpn":{…} in JSONL; isVpn, isProxy,
                   isHosting, isMobile, isTor, isRelay, vpnProvider, vpnConfidence
                   columns in CSV)

Streams with bounded memory; shows a progress line on standard error when it
is a terminal. An address stands alone as a word: "x1.2.3.4" is not one,
"1.2.3.4:8080", "[2001:db8::1]:443" and "fe80::1%eth0" (the zone dropped) are.

${EXIT}`;

export const EXPORT_HELP = `Usage: ipintel export --out DIR [--only city,asn,anonymous-ip,csv] [--if-changed]

Writes what the service answers, for every address, into DIR:
  ipintel-city.mmdb          GeoIP2/GeoLite2-City layout (country, city, subdivisions, location)
  ipintel-asn.mmdb           GeoLite2-ASN layout (autonomous_system_number, _organization)
  ipintel-anonymous-ip.mmdb  GeoIP2-Anonymous-IP layout (is_anonymous_vpn, ...) plus
                             provider, confidence, reasons, is_mobile
  ipintel-ranges.csv         start,end,cidr,... one row per range with the same answers
  ipintel-export.json        what was written, from which data, with SHA-256s
Each file is renamed into place whole. The data is the service's: GEOIP_DB,
ASN_DB, DATA_DIR (updates and feeds) and OVERRIDES_FILE (see docs/export.md).
--only writes only the files named (the CSV is the largest and slowest part).
--if-changed writes nothing when DIR already holds an export of the same data
(its manifest names the data's version) by this version of ipintel.

${ENVIRONMENT}

Exit status: 0 written; 1 the data could not be read or a file not written; 2 usage.
`;

export const RANGES_HELP = `Usage: ipintel ranges [--country CC,..] [--asn AS,..] [--kind K,..] [--provider P,..]
                      [--family 4|6] [--format F] [--name NAME]

The fewest CIDR blocks covering exactly the addresses that match every option
given (comma-separated values are alternatives), as GET /ranges lists them:
  --country   ISO 3166 alpha-2 codes: the country by location (GeoIP answers,
              geofeeds and overrides included), not the registry's
  --asn       AS numbers (AS14061 or 14061)
  --kind      vpn, proxy, tor, relay, hosting, mobile, bogon
  --provider  VPN or relay providers (Mullvad, pia, ...)
  --family    4 or 6 (both when left out)
  --format    plain (one CIDR a line, the default), json, nftables, ipset,
              nginx (a geo block), iptables (iptables-restore; needs --family)
  --name      the set, variable or chain name (default ipintel)

  ipintel ranges --country RU --format nftables > ru.nft && nft -f ru.nft

${ENVIRONMENT}

${EXIT}
`;

export const SERVE_HELP = `Usage: ipintel serve

Starts the HTTP API (and MCP at /mcp) as npm start does, configured by the
environment (PORT, HOST, RATE_LIMIT_MAX, REDIS_URL, WORKERS, API_KEYS_FILE,
METRICS_TOKEN, ...; see docs/configuration.md and docs/security.md), in a
process of its own with npm start's node flags. Re-reads its data and API keys
on SIGHUP; stops on SIGTERM or SIGINT.`;

export const UPDATE_HELP = `Usage: ipintel update-data [--data-dir DIR] [--only id,id]

Downloads the VPN, hosting and Tor feeds into DATA_DIR/feeds, refreshes the
IANA RDAP bootstrap, and updates the GeoIP and ASN data sets in
DATA_DIR/tables (DATA_SOURCE says from where), as npm run update-data does;
with MAXMIND_ACCOUNT_ID and MAXMIND_LICENSE_KEY set, also GeoLite2 City as
the second location source (geolite2-city, into DATA_DIR/geolite2-city.mmdb);
with IPINFO_TOKEN set, also IPinfo Lite (ipinfo-lite, into
DATA_DIR/ipinfo-lite.mmdb); with IP2LOCATION_TOKEN set, IP2Location LITE DB11
(ip2location-db11, into DATA_DIR/ip2location-db11*.zip). A running service
picks the new data up on its minute check or SIGHUP.
--only takes ids such as aws,tor-exits,rdap-bootstrap,geoip,asn,geolite2-city,ipinfo-lite,
ip2location-db11.
Exit status 0 when at least one data set is current, 1 when every one failed
(the previous data is kept either way), 2 on bad arguments.`;

export function lookupHelp(name: string): string {
  return `${LOOKUP_HELP[name] ?? ''}\n\n${ENVIRONMENT}\n\n${EXIT}\n`;
}
