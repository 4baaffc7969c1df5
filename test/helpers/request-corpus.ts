// Byte streams for the differential tests (test/http/node-parity.test.ts),
// written for this project in the classes of llhttp's own request tests
// (request lines, header syntax, Content-Length and chunked framing,
// pipelining, Connection handling, limits) and of the request-smuggling
// classics (CL.TE, TE.CL, TE.TE obfuscations, duplicate lengths). Targets are
// chosen so that the service's own answers keep the connection as a bare
// server's do: a request without a body asks for GET /healthz, one with a
// body is a POST /batch of JSON, which the service reads whole before it
// answers (an early refusal — 405, 413, 415, 429 on a body still arriving —
// closes the connection on purpose: ./linger.ts, tested in
// lingering-close.test.ts).

const HOST = 'Host: a\r\n';
const GET = `GET /healthz HTTP/1.1\r\n${HOST}\r\n`;
const JSON_BODY = '["8.8.8.8"]';
/** a POST /batch head without its framing header: append one, the blank line and the body */
const POST = `POST /batch HTTP/1.1\r\n${HOST}Content-Type: application/json\r\n`;
const chunked = (body: string): string => `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
const withLength = (body: string): string => `${POST}Content-Length: ${body.length}\r\n\r\n${body}`;

/** [name, bytes] */
export type Stream = [string, string];

export const STREAMS: readonly Stream[] = [
  // request lines
  ['plain GET', GET],
  ['GET with a query', `GET /healthz?a=1&b=%20 HTTP/1.1\r\n${HOST}\r\n`],
  ['absolute-form target', `GET http://a/healthz HTTP/1.1\r\n${HOST}\r\n`],
  ['asterisk target on GET', `GET * HTTP/1.1\r\n${HOST}\r\n`],
  ['HTTP/1.0', `GET /healthz HTTP/1.0\r\n${HOST}\r\n`],
  ['HTTP/1.0 keep-alive', `GET /healthz HTTP/1.0\r\n${HOST}Connection: keep-alive\r\n\r\n`],
  ['HTTP/2.0 in a request line', `GET /healthz HTTP/2.0\r\n${HOST}\r\n`],
  ['HTTP/1.2', `GET /healthz HTTP/1.2\r\n${HOST}\r\n`],
  ['lower-case version', `GET /healthz http/1.1\r\n${HOST}\r\n`],
  ['lower-case method', `get /healthz HTTP/1.1\r\n${HOST}\r\n`],
  ['unknown method', `FETCH /healthz HTTP/1.1\r\n${HOST}\r\n`],
  ['two spaces after the method', `GET  /healthz HTTP/1.1\r\n${HOST}\r\n`],
  ['a tab in the target', `GET /health\tz HTTP/1.1\r\n${HOST}\r\n`],
  ['a NUL in the target', `GET /health\0z HTTP/1.1\r\n${HOST}\r\n`],
  ['a raw UTF-8 target', `GET /h\xc3\xa9 HTTP/1.1\r\n${HOST}\r\n`],
  ['trailing text after the version', `GET /healthz HTTP/1.1 x\r\n${HOST}\r\n`],
  ['no version', `GET /healthz\r\n${HOST}\r\n`],
  ['blank lines before the request', `\r\n\r\n${GET}`],
  ['a bare LF request line', `GET /healthz HTTP/1.1\n${HOST}\r\n`],
  ['HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
  // header syntax
  ['no Host', 'GET /healthz HTTP/1.1\r\n\r\n'],
  ['two Host lines', `GET /healthz HTTP/1.1\r\n${HOST}${HOST}\r\n`],
  ['a space before the colon', `GET /healthz HTTP/1.1\r\nHost : a\r\n\r\n`],
  ['obs-fold', `GET /healthz HTTP/1.1\r\n${HOST}X-A: b\r\n c\r\n\r\n`],
  ['a NUL in a value', `GET /healthz HTTP/1.1\r\n${HOST}X-A: b\0c\r\n\r\n`],
  ['DEL and obs-text in a value', `GET /healthz HTTP/1.1\r\n${HOST}X-A: \x7f\x80\xff\r\n\r\n`],
  ['a bare CR in a value', `GET /healthz HTTP/1.1\r\n${HOST}X-A: b\rc\r\n\r\n`],
  ['bare LF line ends', 'GET /healthz HTTP/1.1\nHost: a\n\n'],
  ['a header without a colon', `GET /healthz HTTP/1.1\r\n${HOST}X-A\r\n\r\n`],
  ['an empty header name', `GET /healthz HTTP/1.1\r\n${HOST}: b\r\n\r\n`],
  ['a head over 16 KiB', `GET /healthz HTTP/1.1\r\n${HOST}X-A: ${'a'.repeat(17 * 1024)}\r\n\r\n`],
  // Connection and friends
  ['Connection: close', `GET /healthz HTTP/1.1\r\n${HOST}Connection: close\r\n\r\n${GET}`],
  [
    'Connection: keep-alive, close',
    `GET /healthz HTTP/1.1\r\n${HOST}Connection: keep-alive, close\r\n\r\n${GET}`,
  ],
  [
    'Proxy-Connection: close',
    `GET /healthz HTTP/1.1\r\n${HOST}Proxy-Connection: close\r\n\r\n${GET}`,
  ],
  [
    'Proxy-Connection: keep-alive',
    `GET /healthz HTTP/1.1\r\n${HOST}Proxy-Connection: keep-alive\r\n\r\n${GET}`,
  ],
  [
    'Connection: Upgrade',
    `GET /healthz HTTP/1.1\r\n${HOST}Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n${GET}`,
  ],
  [
    'Expect: 100-continue with a body',
    `${POST}Expect: 100-continue\r\nContent-Length: 11\r\n\r\n${JSON_BODY}`,
  ],
  ['Expect: an unknown expectation', `GET /healthz HTTP/1.1\r\n${HOST}Expect: teapot\r\n\r\n`],
  // Content-Length
  ['a body by Content-Length', withLength(JSON_BODY)],
  ['Content-Length: 0', `${POST}Content-Length: 0\r\n\r\n`],
  ['Content-Length with leading zeros', `${POST}Content-Length: 0011\r\n\r\n${JSON_BODY}`],
  ['Content-Length with a plus sign', `${POST}Content-Length: +11\r\n\r\n${JSON_BODY}`],
  ['a negative Content-Length', `${POST}Content-Length: -1\r\n\r\n${JSON_BODY}`],
  ['Content-Length not a number', `${POST}Content-Length: 1x\r\n\r\n${JSON_BODY}`],
  [
    'two equal Content-Lengths',
    `${POST}Content-Length: 11\r\nContent-Length: 11\r\n\r\n${JSON_BODY}`,
  ],
  [
    'two different Content-Lengths',
    `${POST}Content-Length: 11\r\nContent-Length: 5\r\n\r\n${JSON_BODY}`,
  ],
  ['Content-Length: 11, 11', `${POST}Content-Length: 11, 11\r\n\r\n${JSON_BODY}`],
  [
    'a Content-Length longer than the body, then a GET',
    `${POST}Content-Length: 30\r\n\r\n${JSON_BODY}${GET}`,
  ],
  ['a Content-Length shorter than the body', `${POST}Content-Length: 5\r\n\r\n${JSON_BODY}`],
  // chunked
  ['a chunked body', `${POST}Transfer-Encoding: chunked\r\n\r\n${chunked(JSON_BODY)}`],
  [
    'chunks with extensions',
    `${POST}Transfer-Encoding: chunked\r\n\r\nb;a=1;b="x"\r\n${JSON_BODY}\r\n0;z\r\n\r\n`,
  ],
  [
    'upper-case chunk size',
    `${POST}Transfer-Encoding: chunked\r\n\r\nB\r\n${JSON_BODY}\r\n0\r\n\r\n`,
  ],
  [
    'a chunked body with trailers',
    `${POST}Transfer-Encoding: chunked\r\n\r\nb\r\n${JSON_BODY}\r\n0\r\nX-T: 1\r\n\r\n`,
  ],
  ['a bad chunk size', `${POST}Transfer-Encoding: chunked\r\n\r\nzz\r\n${JSON_BODY}\r\n0\r\n\r\n`],
  [
    'a chunk size that overflows',
    `${POST}Transfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\nx\r\n0\r\n\r\n`,
  ],
  [
    'a chunk without its CRLF',
    `${POST}Transfer-Encoding: chunked\r\n\r\nb\r\n${JSON_BODY}0\r\n\r\n`,
  ],
  [
    'a bare LF after a chunk size',
    `${POST}Transfer-Encoding: chunked\r\n\r\nb\n${JSON_BODY}\r\n0\r\n\r\n`,
  ],
  [
    'a bare CR after a chunk size',
    `${POST}Transfer-Encoding: chunked\r\n\r\nb\r${JSON_BODY}\r\n0\r\n\r\n`,
  ],
  [
    'a space before a chunk size',
    `${POST}Transfer-Encoding: chunked\r\n\r\n b\r\n${JSON_BODY}\r\n0\r\n\r\n`,
  ],
  [
    'chunk extensions over 16 KiB',
    `${POST}Transfer-Encoding: chunked\r\n\r\nb;${'e'.repeat(17 * 1024)}\r\n${JSON_BODY}\r\n0\r\n\r\n`,
  ],
  [
    'Transfer-Encoding: xchunked',
    `${POST}Transfer-Encoding: xchunked\r\n\r\n${chunked(JSON_BODY)}`,
  ],
  ['Transfer-Encoding: identity', `${POST}Transfer-Encoding: identity\r\n\r\n${JSON_BODY}`],
  [
    'Transfer-Encoding: chunked, identity',
    `${POST}Transfer-Encoding: chunked, identity\r\n\r\n${chunked(JSON_BODY)}`,
  ],
  [
    'Transfer-Encoding: identity, chunked',
    `${POST}Transfer-Encoding: identity, chunked\r\n\r\n${chunked(JSON_BODY)}`,
  ],
  ['Transfer-Encoding: CHUNKED', `${POST}Transfer-Encoding: CHUNKED\r\n\r\n${chunked(JSON_BODY)}`],
  [
    'two Transfer-Encoding lines',
    `${POST}Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n${chunked(JSON_BODY)}`,
  ],
  [
    'Transfer-Encoding folded',
    `${POST}Transfer-Encoding:\r\n chunked\r\n\r\n${chunked(JSON_BODY)}`,
  ],
  [
    'Transfer-Encoding with a space before the colon',
    `${POST}Transfer-Encoding : chunked\r\n\r\n${chunked(JSON_BODY)}`,
  ],
  [
    'Transfer-Encoding with a tab',
    `${POST}Transfer-Encoding:\tchunked\r\n\r\n${chunked(JSON_BODY)}`,
  ],
  // smuggling classics
  ['CL.TE', `${POST}Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG${GET}`],
  [
    'TE.CL',
    `${POST}Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n5c\r\nGPOST /batch HTTP/1.1\r\nContent-Length: 15\r\n\r\nx=1\r\n0\r\n\r\n`,
  ],
  ['a smuggled request in a chunk', `${POST}Transfer-Encoding: chunked\r\n\r\n${chunked(GET)}`],
  [
    'data after Connection: close',
    `${POST}Connection: close\r\nContent-Length: 11\r\n\r\n${JSON_BODY}${GET}`,
  ],
  [
    'a body on GET by Content-Length: 0 then a GET',
    `GET /healthz HTTP/1.1\r\n${HOST}Content-Length: 0\r\n\r\n${GET}`,
  ],
  // pipelining
  ['three GETs', GET.repeat(3)],
  ['GET, POST with a body, GET', `${GET}${withLength(JSON_BODY)}${GET}`],
  ['GET then garbage', `${GET}\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03`],
  ['a TLS ClientHello', '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03abcdef'],
  ['GET then half a head', `${GET}GET /healthz HTTP/1.1\r\nHo`],
];

/** The bytes of a POST whose body can be mutated, for the seeded mutations: head and framing first. */
export const MUTABLE: readonly string[] = [
  withLength(JSON_BODY) + GET,
  `${POST}Transfer-Encoding: chunked\r\n\r\n${chunked(JSON_BODY)}${GET}`,
  GET + GET,
];
/** Where a mutation may fall in each MUTABLE stream: after the target and Content-Type (so that the service reads the body) */
export function mutableFrom(stream: string): number {
  return stream.startsWith('POST') ? POST.length : 'GET /healthz '.length;
}

/** Bytes a mutation writes: the ones framing turns on. */
export const MUTATION_BYTES = [
  '\r',
  '\n',
  ' ',
  '\t',
  ':',
  '\0',
  '0',
  '9',
  'f',
  'x',
  ',',
  ';',
  '\x7f',
  '\xff',
];
