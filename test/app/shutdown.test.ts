// SIGTERM while a slow upstream lookup is in flight: the service stops
// accepting, finishes that request, and exits 0.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { getOnce } from '../helpers/http-get.js';
import { spawnService } from '../helpers/spawned-service.js';

const RDAP_BODY = readFileSync(new URL('../fixtures/rdap/arin_23.0.2.10.json', import.meta.url));

describe('graceful shutdown', () => {
  it('SIGTERM during a slow RDAP lookup: the request finishes and is logged, the process exits 0', async (t) => {
    // an RDAP server that takes 800 ms to answer
    const rdap = createServer((_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/rdap+json' }).end(RDAP_BODY);
      }, 800);
    });
    await new Promise<void>((resolve) => rdap.listen(0, '127.0.0.1', resolve));
    t.after(() => rdap.close());
    const rdapPort = (rdap.address() as AddressInfo).port;
    const service = await spawnService({
      RDAP_BASE_URL: `http://127.0.0.1:${rdapPort}/`,
      RDAP_TIMEOUT_MS: '5000',
      WHOIS_SERVER: '127.0.0.1:9',
    });
    t.after(() => service.kill());
    const { port, exited } = service;
    const inFlight = getOnce(port, '/whois/23.0.2.10');
    await new Promise((r) => setTimeout(r, 250));
    service.kill('SIGTERM');
    const answer = await inFlight;
    assert.equal(answer.status, 200, answer.body);
    assert.equal((JSON.parse(answer.body) as { data: { ip: string } }).data.ip, '23.0.2.10');
    assert.equal(await exited, 0);
    // access lines are batched: the last one still reaches the log at shutdown
    const logged = service.logLines<{ msg?: string; url?: string; status?: number }>();
    assert.ok(
      logged.some((l) => l.msg === 'request' && l.url === '/whois/23.0.2.10' && l.status === 200),
      'the in-flight request has its access line',
    );
  });
});
