import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyOrgName, type NameMatch } from '../../../src/lookups/vpn/org-rules.js';

// Every name below is an organisation name as it appears in the embedded
// DB-IP ASN data (node_modules/@ip-location-db/asn), AS number in the comment.
const ROWS: { org: string | null; want: NameMatch['class'] | null; rule?: NameMatch['rule'] }[] = [
  // hosting brands
  { org: 'Cloudflare, Inc.', want: 'hosting', rule: 'hosting-brand' }, // 13335: "Cloud" brand, not the weak rule
  { org: 'Amazon.com, Inc.', want: 'hosting', rule: 'hosting-brand' }, // 16509
  { org: 'Amazon Data Services Ireland Ltd', want: 'hosting', rule: 'hosting-brand' }, // 8987
  { org: 'Google LLC', want: 'hosting', rule: 'hosting-brand' }, // 15169
  { org: 'Microsoft Corporation', want: 'hosting', rule: 'hosting-brand' }, // 8075
  { org: 'DigitalOcean, LLC', want: 'hosting', rule: 'hosting-brand' }, // 14061
  { org: 'The Constant Company, LLC', want: 'hosting', rule: 'hosting-brand' }, // 20473 (Vultr)
  { org: 'Hetzner Online GmbH', want: 'hosting', rule: 'hosting-brand' }, // 24940
  { org: 'OVH SAS', want: 'hosting', rule: 'hosting-brand' }, // 16276
  { org: 'Akamai Technologies, Inc.', want: 'hosting', rule: 'hosting-brand' }, // 63949
  { org: 'M247 UK Ltd', want: 'hosting', rule: 'hosting-brand' }, // the ASN table makes AS9009 vpn; the name alone says hosting
  // strong hosting words
  { org: 'Hostinger International Limited', want: 'hosting', rule: 'hosting-brand' }, // 47583
  { org: 'HostPapa', want: 'hosting', rule: 'hosting-word' }, // 36352
  { org: 'KVCHOSTING.COM LLC', want: 'hosting', rule: 'hosting-word' }, // 395111: "hosting" inside a word
  { org: 'Abelohost BV', want: 'hosting', rule: 'hosting-word' }, // 204196
  { org: "Joe's Datacenter, LLC", want: 'hosting', rule: 'hosting-word' }, // 19969
  { org: 'Micron21 Datacentre Pty Ltd', want: 'hosting', rule: 'hosting-word' }, // 38880
  { org: 'Priority Colo Inc', want: 'hosting', rule: 'hosting-word' }, // 30176
  { org: 'SIA VPS Hosting', want: 'hosting', rule: 'hosting-word' },
  { org: 'Host-Telecom.com s.r.o.', want: 'hosting', rule: 'hosting-word' }, // 51248: "Telecom" does not veto "Host"
  { org: 'UAB Cherry Servers', want: 'hosting', rule: 'hosting-word' }, // 16125
  // weak: cloud / CDN
  { org: 'UpCloud Ltd', want: 'hosting', rule: 'hosting-brand' }, // 202053
  { org: 'CLOUDSIGMA AG', want: 'hosting', rule: 'cloud-word' },
  { org: 'CDNetworks Inc.', want: null }, // 36408: "CDNetworks" is one word, and "Networks" vetoes weak rules
  { org: 'DMIT Cloud Services', want: 'hosting', rule: 'cloud-word' },
  // VPN operators
  { org: 'Mullvad VPN AB', want: 'vpn', rule: 'vpn-name' }, // 216025
  { org: 'IVPN Limited', want: 'vpn', rule: 'vpn-name' }, // 203619
  { org: 'Windscribe', want: 'vpn', rule: 'vpn-name' }, // 397540
  { org: 'Proton AG', want: 'vpn', rule: 'vpn-name' }, // 208172
  { org: 'VPN de Mexico, S.A. de C.V.', want: null }, // 27683: an access network despite "VPN"
  // mobile carriers, including one with "Cloud"-like words
  { org: 'T-Mobile USA, Inc.', want: 'mobile', rule: 'mobile-word' }, // 21928
  { org: 'Free Mobile SAS', want: 'mobile', rule: 'mobile-word' }, // 51207
  { org: 'Two Degrees Mobile Limited', want: 'mobile', rule: 'mobile-word' }, // 9790
  { org: 'NE COLORADO CELLULAR INC', want: 'mobile', rule: 'mobile-word' },
  { org: 'Telefonica Celular de Bolivia S.A.', want: 'mobile', rule: 'mobile-word' }, // 27882
  { org: 'Colombia Movil', want: 'mobile', rule: 'mobile-word' }, // 27831
  { org: 'China Mobile Communications Corporation', want: 'mobile', rule: 'mobile-word' }, // 56040
  { org: 'Cloud 9 Wireless LLC', want: null }, // 401694: "Cloud" beside "Wireless" is an access network, not hosting
  // access networks that must not be hosting
  { org: 'Fiberax Networking&Cloud Ltd.', want: null }, // 3252: "Cloud" next to fibre
  { org: 'CLOUDSYS TELECOM SRL', want: null }, // 21294
  { org: 'Cloudlasers Broadband', want: null }, // 135691
  { org: 'Cloud Net Cable and Telecom Inc.', want: null }, // 149022
  { org: 'Masergy Cloud Communications, Inc.', want: null }, // 40399
  { org: 'Comcast Cable Communications, LLC', want: null }, // 7015
  { org: 'Deutsche Telekom AG', want: null }, // 3320
  { org: 'Charter Communications Inc', want: null }, // 7843
  { org: 'SODECAM - Soc de Desenv. Cultural do Amazonas S/A', want: null }, // 52994: "Amazon" alone is not AWS
  { org: 'PRODAM Processamento de Dados Amazonas S.A', want: null }, // 262486
  // institutions and lookalikes
  { org: 'City of St. Cloud, MN', want: null },
  { org: 'Host Hotels and Resorts, L.P.', want: null }, // 53918
  { org: 'Exxon Mobil Corporation', want: null }, // 1766
  { org: 'PSA AUTOMOBILES SA', want: null }, // 16236
  { org: 'Massachusetts Institute of Technology', want: null }, // 3
  { org: 'University of Delaware', want: null }, // 2
  { org: '', want: null },
  { org: null, want: null },
];

void describe('organisation-name rules', () => {
  for (const row of ROWS) {
    void it(`${JSON.stringify(row.org)} → ${row.want ?? 'no class'}`, () => {
      const got = classifyOrgName(row.org);
      assert.equal(got?.class ?? null, row.want);
      if (row.rule !== undefined) assert.equal(got?.rule, row.rule);
    });
  }
});
