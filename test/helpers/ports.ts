// A port free on loopback right now, for a child process that must be told
// its port before it starts (a redis-server), and the ports a child listens
// on (a spawned service started on port 0).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The loopback TCP ports process `pid` listens on, from /proc (Linux): its
 * open sockets' inodes matched with the LISTEN rows of /proc/<pid>/net/tcp
 * and tcp6, for it and its descendants. A child started on PORT=0 is found
 * where it really listens, so a test never talks to another process that
 * took a port picked beforehand.
 */
export function listeningPorts(pid: number): number[] {
  // the process and its descendants (`ipintel serve` runs the service as a child of its own)
  const inodes = new Set(processTree(pid).flatMap(socketInodes));
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    let rows: string[];
    try {
      rows = readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const row of rows) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const fields = row.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== '0A' || !inodes.has(fields[9]!)) continue;
      ports.push(Number.parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

/** `pid` and every process below it (/proc/<pid>/task/<tid>/children). */
function processTree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${all[i]}/task`)) {
        const children = readFileSync(`/proc/${all[i]}/task/${task}/children`, 'utf8');
        for (const child of children.split(' ')) if (child.trim() !== '') all.push(Number(child));
      }
    } catch {
      // gone meanwhile
    }
  }
  return all;
}

/** The inodes of a process's open sockets. */
function socketInodes(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        return match === null ? [] : [match[1]!];
      } catch {
        return []; // closed meanwhile
      }
    });
  } catch {
    return []; // the process is gone
  }
}
