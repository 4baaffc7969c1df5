import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { loadAsnClasses, parseAsnClasses } from '../../../src/lookups/vpn/asn-classes.js';

const HEADER = 'asn,name,class,source';

void describe('parseAsnClasses', () => {
  void it('reads quoted names, skips comments and blank lines', () => {
    const table = parseAsnClasses(
      `# comment\n${HEADER}\n\n1442,"SureHosting Internet Solutions, Inc.",hosting,x4bnet-datacenter\n6167,Verizon Business,mobile,manual:mobile-carrier\n`,
    );
    assert.equal(table.size, 2);
    assert.deepEqual(table.get(1442), {
      asn: 1442,
      name: 'SureHosting Internet Solutions, Inc.',
      class: 'hosting',
      source: 'x4bnet-datacenter',
    });
  });

  const BAD: { name: string; body: string; error: RegExp }[] = [
    { name: 'missing header', body: '1,a,hosting,x\n', error: /expected header/ },
    { name: 'no rows and no header', body: '# only\n', error: /no header/ },
    { name: 'unknown class', body: `${HEADER}\n1,a,datacenter,x\n`, error: /bad class/ },
    { name: 'ASN with a prefix', body: `${HEADER}\nAS1,a,hosting,x\n`, error: /bad ASN/ },
    { name: 'ASN beyond 32 bits', body: `${HEADER}\n4294967296,a,hosting,x\n`, error: /bad ASN/ },
    { name: 'too few fields', body: `${HEADER}\n1,a,hosting\n`, error: /4 fields/ },
    { name: 'empty source', body: `${HEADER}\n1,a,hosting,\n`, error: /empty source/ },
    { name: 'duplicate ASN', body: `${HEADER}\n1,a,hosting,x\n1,a,vpn,y\n`, error: /listed twice/ },
  ];
  for (const row of BAD) {
    void it(`refuses ${row.name}`, () => assert.throws(() => parseAsnClasses(row.body), row.error));
  }
});

void describe('the committed resources/asn-classes.csv', () => {
  void it('has the required coverage per class', async () => {
    const table = await loadAsnClasses();
    const count = (cls: string) => [...table.values()].filter((e) => e.class === cls).length;
    assert.ok(count('hosting') >= 300, `hosting: ${count('hosting')}`);
    assert.ok(count('mobile') >= 100, `mobile: ${count('mobile')}`);
    assert.ok(count('vpn') >= 10, `vpn: ${count('vpn')}`);
  });

  const KNOWN: [number, string][] = [
    [16509, 'hosting'], // AMAZON-02
    [13335, 'hosting'], // Cloudflare: hosting by decision (its ranges are an edge network)
    [24940, 'hosting'], // Hetzner
    [20473, 'hosting'], // Vultr / Choopa
    [9009, 'vpn'], // M247
    [207137, 'vpn'], // PacketHub (NordVPN)
    [39351, 'vpn'], // 31173 Services AB (Mullvad)
    [209854, 'vpn'], // Surfshark (Cyberzone)
    [6167, 'mobile'], // Verizon Wireless
    [55836, 'mobile'], // Reliance Jio
    [33771, 'mobile'], // Safaricom
    [3320, 'isp'], // DTAG: mixed fixed and mobile
    [9808, 'isp'], // China Mobile: the largest fixed-broadband operator in China too
  ];
  for (const [asn, cls] of KNOWN) {
    void it(`classes AS${asn} as ${cls}`, async () => {
      assert.equal((await loadAsnClasses()).get(asn)?.class, cls);
    });
  }

  void it('lists only ASNs present in the embedded DB-IP ASN data', async () => {
    const table = await loadAsnClasses();
    const dir = dirname(createRequire(import.meta.url).resolve('@ip-location-db/asn/package.json'));
    const seen = new Set<number>();
    for (const file of ['asn-ipv4.csv', 'asn-ipv6.csv']) {
      const lines = createInterface({ input: createReadStream(join(dir, file)) });
      for await (const line of lines) {
        const asn = Number(line.split(',')[2]);
        if (table.has(asn)) seen.add(asn);
      }
    }
    const missing = [...table.keys()].filter((asn) => !seen.has(asn));
    // the data package is refreshed monthly; a few ASNs may drop out between curations
    assert.ok(missing.length <= table.size * 0.02, `missing: ${missing.join(', ')}`);
  });
});
