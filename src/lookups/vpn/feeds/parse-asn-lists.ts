// Parser for the community lists of autonomous systems (X4BNet's
// `input/*/ASN.txt`, NullifiedCode's ASN-Lists, brianhama's bad-asn-list):
// no prefixes, only AS numbers, in three shapes — `AS<n> # comment`,
// `AS<n> free text`, and CSV with a numeric first column under an `ASN,…`
// header (a number quoted or not). A line in none of those shapes means the document is not an ASN
// list (an HTML error page, a changed format): the whole list is refused.
import { FeedFormatError, type FeedParser } from './feed-types.js';
import { contentLines } from './feed-validate.js';

// the number may be quoted in the CSV ("20248","Take 2 Hosting, Inc.")
const ASN_LINE = /^(?:AS)?(\d{1,10})(?=$|[\s,#])|^"(?:AS)?(\d{1,10})"(?=$|,)/i;
const MAX_ASN = 4_294_967_295;

export const parseAsnList: FeedParser = (body, feed) => {
  const asns = new Set<number>();
  contentLines(body).forEach(({ line, number }, i) => {
    if (i === 0 && /^asn\s*,/i.test(line)) return; // a CSV header
    const match = ASN_LINE.exec(line);
    const asn = match === null ? NaN : Number(match[1] ?? match[2]);
    if (!(asn >= 1 && asn <= MAX_ASN)) {
      throw new FeedFormatError(
        feed,
        `line ${number}: not an AS number: ${JSON.stringify(line.slice(0, 60))}`,
      );
    }
    asns.add(asn);
  });
  if (asns.size === 0) throw new FeedFormatError(feed, 'no AS numbers found');
  return { feed, prefixes: [], publishedAt: null, asns: [...asns].sort((a, b) => a - b) };
};
