// Our tree walk (with its IPv4 jump table) must land on the same record as
// mmdb-lib's for every address: checked on test MMDBs of each record size
// and on the embedded DB-IP files.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Reader } from 'maxmind';
import { embeddedFiles } from '../../../src/lookups/geoip/embedded-data.js';
import { MmdbTree, type TreeLayout } from '../../../src/lookups/geoip/mmdb-tree.js';
import { formatIpv4, formatIpv6, parseIp, type Ip } from '../../../src/net/ip.js';
import { buildMmdb, cityRecord } from '../../helpers/mmdb-writer.js';

interface MmdbLibInternals {
  ipv4StartNodeNumber: number;
  findAddressInTree(address: string): [number | null, number];
}

function treeOf(db: Buffer): {
  tree: MmdbTree;
  layout: TreeLayout;
  reference: (ip: Ip) => number | null;
} {
  const reader = new Reader<object>(db);
  const internals = reader as unknown as MmdbLibInternals;
  const layout: TreeLayout = {
    db,
    nodeCount: reader.metadata.nodeCount,
    recordSize: reader.metadata.recordSize,
    ipv4Start: internals.ipv4StartNodeNumber,
  };
  return {
    tree: new MmdbTree(layout),
    layout,
    reference: (ip) => internals.findAddressInTree(ip.text)[0],
  };
}

const random = (n: number) => Math.floor(Math.random() * n);
const randomV4 = () => formatIpv4(random(2 ** 32));
const randomV6 = (prefix?: number) =>
  formatIpv6(
    Array.from({ length: 8 }, (_, i) =>
      i === 0 && prefix !== undefined ? prefix : random(0x10000),
    ),
  );

function agree(tree: MmdbTree, reference: (ip: Ip) => number | null, addresses: string[]): number {
  let found = 0;
  for (const text of addresses) {
    const ip = parseIp(text);
    assert.ok(ip !== null, text);
    const ours = ip.version === 4 ? tree.v4(ip) : tree.v6(ip);
    assert.equal(ours, reference(ip), text);
    if (ours !== null) found++;
  }
  return found;
}

describe('MmdbTree', () => {
  for (const recordSize of [24, 28, 32] as const) {
    it(`finds mmdb-lib's record in a ${recordSize}-bit tree (IPv4 under ::/96 and IPv6)`, () => {
      const networks = [];
      for (let i = 0; i < 300; i++) {
        const v4 = `${formatIpv4(random(2 ** 32))}/${8 + random(25)}`;
        networks.push({ network: v4, data: cityRecord({ country: 'DE', city: `c${i}` }) });
        const v6 = `${randomV6(0x2000 + random(0x2000))}/${16 + random(49)}`;
        networks.push({ network: v6, data: cityRecord({ country: 'FR', city: `d${i}` }) });
      }
      const { tree, reference } = treeOf(
        buildMmdb({ databaseType: 'GeoLite2-City', networks, recordSize }),
      );
      const addresses: string[] = [];
      for (const { network } of networks) addresses.push(network.split('/')[0] ?? '');
      for (let i = 0; i < 3000; i++) addresses.push(randomV4(), randomV6(0x2000 + random(0x2000)));
      const found = agree(tree, reference, addresses);
      assert.ok(found >= networks.length, `only ${found} addresses had a record`);
    });
  }

  it('reads records above 24 bits as the spec lays them out (28- and 32-bit)', () => {
    // one node: left record 0x0abcdef1, right record 0x05432101 (both data pointers)
    const left = 0x0abcdef1;
    const right = 0x05432101;
    const node28 = Buffer.from([0xbc, 0xde, 0xf1, 0xa5, 0x43, 0x21, 0x01]);
    const node32 = Buffer.alloc(8);
    node32.writeUInt32BE(left, 0);
    node32.writeUInt32BE(right, 4);
    for (const [recordSize, db] of [
      [28, node28],
      [32, node32],
    ] as const) {
      const tree = new MmdbTree({ db, nodeCount: 1, recordSize, ipv4Start: 0 });
      const low = parseIp('1.2.3.4');
      const high = parseIp('200.1.2.3');
      assert.ok(low?.version === 4 && high?.version === 4);
      assert.equal(tree.v4(low), left, `${recordSize}-bit left`);
      assert.equal(tree.v4(high), right, `${recordSize}-bit right`);
    }
  });

  it("finds mmdb-lib's record in the embedded DB-IP files", () => {
    const files = embeddedFiles();
    const v4 = treeOf(readFileSync(files.cityV4));
    const v6 = treeOf(readFileSync(files.cityV6));
    const fixed4 = ['0.0.0.0', '1.1.1.1', '8.8.8.8', '81.2.69.142', '255.255.255.255'];
    const addresses4 = [...fixed4, ...Array.from({ length: 20_000 }, randomV4)];
    assert.ok(agree(v4.tree, v4.reference, addresses4) > 10_000);
    // the same walk without the IPv4 table
    const plain = new MmdbTree(v4.layout, { ipv4Table: false });
    assert.ok(agree(plain, v4.reference, addresses4.slice(0, 2_000)) > 1_000);
    const fixed6 = ['::', '2001:4860:4860::8888', '2a02:8070::1', 'ffff::1'];
    const addresses6 = [
      ...fixed6,
      ...Array.from({ length: 5_000 }, () => randomV6(0x2000 + random(0x2000))),
    ];
    agree(v6.tree, v6.reference, addresses6);
  });
});
