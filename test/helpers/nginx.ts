// The parts of an nginx configuration that every test's own nginx shares
// (the GeoIP2 module's readers, the TLS terminator before the compat
// formats, the range lists' geo block): it runs in the foreground, keeps its
// pid, error log and temporary files in the test's scratch folder, and logs
// no access.
import { join } from 'node:path';

/** The main context's lines: foreground, pid and error log in `dir`. */
export function nginxMain(dir: string): string {
  return `daemon off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'nginx-error.log')} warn;`;
}

/** The http context's lines: no access log, every temporary path in `dir`. */
export function nginxHttpScratch(dir: string): string {
  return `  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;`;
}
