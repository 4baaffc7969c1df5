// ioredis, loaded when REDIS_URL is set (src/redis/redis-link.ts); why a
// module of its own: src/later/prom-client.ts.
export { Redis } from 'ioredis';
