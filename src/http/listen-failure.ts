// A listener that cannot start says why in one line naming the setting: the
// port taken by another process, an address this machine does not have, a
// port below 1024 without the right to it. Node reports these as an 'error'
// event on the server; unheard, it ends the process with a stack trace.

/** The variables that name a listener's port and address. */
export interface ListenSettings {
  port: 'PORT' | 'METRICS_PORT';
  host: 'HOST' | 'METRICS_HOST';
}

/** One line: the setting at fault, its value and the cause, from Node's error code. */
export function listenFailure(
  error: Error & { code?: string },
  settings: ListenSettings,
  port: number,
  host: string,
): string {
  const where = `${host}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return `${settings.port} ${port}: already in use on ${settings.host} ${host} (another process listens there)`;
    case 'EADDRNOTAVAIL':
      return `${settings.host} ${host}: not an address of this machine (cannot listen on ${where})`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${settings.host} ${host}: no such host name (cannot listen on ${where})`;
    case 'EACCES':
      return `${settings.port} ${port}: permission denied on ${settings.host} ${host} (ports below 1024 need privileges)`;
    default:
      return `${settings.port} ${port} on ${settings.host} ${host}: cannot listen: ${error.message}`;
  }
}
