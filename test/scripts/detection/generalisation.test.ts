// Leave-one-provider-out and the time split's feed set, on small feeds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  feedsAsOf,
  leaveProviderOut,
  providersWithLists,
} from '../../../scripts/detection/generalisation.js';
import { storedFeed, vpnHostFeed } from '../../helpers/vpn-feeds.js';

const gluetun = storedFeed('gluetun', 'vpn', ['45.1.0.1/32', '45.2.0.1/32', '45.3.0.1/32'], {
  providers: ['mullvad', 'pia', 'mullvad'],
});
const stored = [
  vpnHostFeed('mullvad-app', 'mullvad', ['45.1.0.1', '45.1.0.2']),
  vpnHostFeed('mullvadwatch', 'mullvad', ['45.1.0.2', '2a03:1b20::1']),
  vpnHostFeed('pia', 'pia', ['45.2.0.9']),
  gluetun,
  storedFeed('x4b-vpn', 'vpn', ['45.1.0.0/24']),
];

void describe('leave one provider out', () => {
  void it('the providers with their own lists, several lists to one provider', () => {
    assert.deepEqual(
      [...providersWithLists(stored)],
      [
        ['mullvad', ['mullvad-app', 'mullvadwatch']],
        ['pia', ['pia']],
      ],
    );
  });

  void it("drops its lists and its aggregate entries; scores its lists' distinct exits", () => {
    const left = leaveProviderOut(stored, 'mullvad');
    assert.deepEqual(left.lists, ['mullvad-app', 'mullvadwatch']);
    assert.deepEqual(
      left.exits.map((ip) => ip.text),
      ['45.1.0.1', '45.1.0.2', '2a03:1b20::1'],
    );
    assert.deepEqual(
      left.feeds.map((f) => [f.feed, f.prefixes, f.providers]),
      [
        ['pia', ['45.2.0.9/32'], undefined],
        ['gluetun', ['45.2.0.1/32'], ['pia']],
        ['x4b-vpn', ['45.1.0.0/24'], undefined],
      ],
    );
  });

  void it('the strict time split leaves out the later copies only', () => {
    assert.deepEqual(
      feedsAsOf(stored, ['pia', 'x4b-vpn']).map((f) => f.feed),
      ['mullvad-app', 'mullvadwatch', 'gluetun'],
    );
  });
});
