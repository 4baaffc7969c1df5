// The VPN services the detector can name. An id is what a reason carries
// (`vpn-provider:<id>`); the name is what `provider` in an answer says.
// gluetun's server list keys its providers by its own lower-case names
// ("private internet access"); GLUETUN_KEYS maps those onto the same ids, so
// one service is one provider whichever list named it.

export const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  airvpn: 'AirVPN',
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
