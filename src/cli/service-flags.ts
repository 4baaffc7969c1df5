// `npm start`'s node flags (package.json; the Dockerfile's CMD has them too),
// with which `ipintel serve` starts the service; GLIBC_TUNABLES is inherited
// from the command's first line. test/startup/node-flags.test.ts holds the
// three to one another.
export const SERVICE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];
