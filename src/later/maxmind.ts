// maxmind's MMDB reader, loaded to compile a file (src/lookups/geoip/compile/compile-sources.ts);
// why a module of its own: src/later/prom-client.ts.
export { Reader } from 'maxmind';
