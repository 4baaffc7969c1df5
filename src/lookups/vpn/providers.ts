// The VPN services the detector can name. An id is what a reason carries
// (`vpn-provider:<id>`); the name is what `provider` in an answer says.
// gluetun's server list keys its providers by its own lower-case names
// ("private internet access"); GLUETUN_KEYS maps those onto the same ids, so
// one service is one provider whichever list named it.

export const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  airvpn: 'AirVPN',
  azirevpn: 'AzireVPN',
  cyberghost: 'CyberGhost',
  expressvpn: 'ExpressVPN',
  fastestvpn: 'FastestVPN',
  giganews: 'Giganews',
  hidemyass: 'HideMyAss',
  ipvanish: 'IPVanish',
  ivpn: 'IVPN',
  mullvad: 'Mullvad',
  nordvpn: 'NordVPN',
  'perfect-privacy': 'Perfect Privacy',
  pia: 'Private Internet Access',
  privado: 'PrivadoVPN',
  privatevpn: 'PrivateVPN',
  protonvpn: 'Proton VPN',
  purevpn: 'PureVPN',
  slickvpn: 'SlickVPN',
  surfshark: 'Surfshark',
  torguard: 'TorGuard',
  tunnelbear: 'TunnelBear',
  'vpn-unlimited': 'VPN Unlimited',
  vpnsecure: 'VPNSecure',
  vyprvpn: 'VyprVPN',
  wevpn: 'WeVPN',
  windscribe: 'Windscribe',
};

const GLUETUN_KEYS: Readonly<Record<string, string>> = {
  'private internet access': 'pia',
};

const PROVIDER_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The provider id for a gluetun key: the known mapping, else the key made id-safe. */
export function providerIdOfGluetunKey(key: string): string {
  return (
    GLUETUN_KEYS[key] ??
    key
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
  );
}

export function isProviderId(id: string): boolean {
  return PROVIDER_ID.test(id);
}

/** Display name of a provider id; an id this table does not know shows as itself. */
export function providerName(id: string): string {
  return PROVIDER_NAMES[id] ?? id;
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/**
 * The words an organisation must contain to be the provider itself: its
 * display name's words without a separate "vpn", and without a trailing "vpn"
 * when at least four letters remain ("NordVPN" → nord, "AirVPN" stays airvpn,
 * "Proton VPN" → proton, "Private Internet Access" as is).
 */
function ownNameWords(id: string): string[] {
  return words(providerName(id))
    .filter((w) => w !== 'vpn')
    .map((w) => (w.endsWith('vpn') && w.length >= 7 ? w.slice(0, -3) : w));
}

/**
 * Whether an AS whose ASN-table organisation is `org` is verifiably the
 * provider's own network: the organisation's words hold the provider's name
 * words in a row ("Mullvad VPN AB" for mullvad, "Proton AG" for protonvpn).
 * Derived from the registry's names, never from a hand-kept list.
 */
export function isOwnNetwork(org: string | null, id: string): boolean {
  if (org === null) return false;
  const name = ownNameWords(id);
  const have = words(org);
  if (name.length === 0) return false;
  for (let i = 0; i + name.length <= have.length; i++) {
    if (name.every((w, k) => have[i + k] === w)) return true;
  }
  return false;
}
