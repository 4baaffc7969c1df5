// prom-client, loaded at the first scrape or a second after start (src/observe/metrics.ts).
//
// The CommonJS packages the service loads when first needed are imported
// through a module of src/later/ that names what it takes: a static named
// import of a CommonJS package reads the same under Node, tsx and the
// service's bundle (scripts/bundle.ts), while an import() of the package
// itself does not (the bundle's chunk exports only `default`).
export { AggregatorRegistry, Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
