// `npm start`: the staleness check of scripts/build-if-stale.mjs and the
// service in one node process. As a `prestart` hook the check cost a second
// node start-up (and npm's lifecycle around it) on every start; here it is a
// few hundred stat calls before the service's own import. The service runs
// as its bundle (scripts/bundle.ts): one file to load instead of ~300.
import { buildIfStale } from './build-if-stale.mjs';

buildIfStale();
await import('../dist/bundle/main.js');
