# ipintel container image: a build stage (dev dependencies, tsc, the compiled
# data tables) and a small runtime stage (production dependencies, dist/, the
# tables). Build with any Docker; BuildKit is not required:
#
#   docker build -t ipintel .
#
# BASE_IMAGE must be a Debian-based image with Node.js 20 and npm on the PATH
# (the official slim image, or your own mirror of it).
ARG BASE_IMAGE=node:20-bookworm-slim

# ---- deps: every dependency, reused until package*.json change ----
FROM ${BASE_IMAGE} AS deps
WORKDIR /app
# an npm mirror or relay, when the build cannot reach registry.npmjs.org itself
ARG NPM_CONFIG_REGISTRY
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund

# ---- prod-deps: what the runtime reads of them ----
FROM deps AS prod-deps
# The raw DB-IP MMDB and ASN CSV files and geo-tz's boundary data are only
# inputs of tables/ (compiled in the build stage); the service reads tables/
# alone. Their licence and package files stay.
RUN npm prune --omit=dev --no-audit --no-fund \
  && rm -f node_modules/@ip-location-db/*/*.mmdb node_modules/@ip-location-db/*/*.csv \
  && rm -rf node_modules/geo-tz/data

# ---- build: tsc and the compiled tables ----
FROM deps AS build
# a C compiler for the one native part, malloc_trim for the idle release
# (src/native/malloc-trim.c, built with Node's own headers by `npm run build`)
RUN apt-get update \
  && apt-get install -y --no-install-recommends gcc libc6-dev \
  && rm -rf /var/lib/apt/lists/*
# sources, and tables/ when the context has them (after `npm install`)
COPY . .
# the `prepare` script: tsc into dist/, then the embedded GeoIP/ASN data and
# their time zones compiled into tables/ (~2 min). Tables from the context are
# kept only when made from the same data files (SHA-256) by the same compiler.
RUN npm run prepare && find dist -name '*.map' -delete

# ---- runtime ----
FROM ${BASE_IMAGE} AS runtime
ARG VERSION=0.1.0
ARG REVISION=
ARG SOURCE_URL=
LABEL org.opencontainers.image.title="ipintel" \
  org.opencontainers.image.description="Self-hostable IP intelligence service: GeoIP, VPN/hosting detection, RDAP/whois, DNS, DNSBL and CIDR over a JSON API and MCP" \
  org.opencontainers.image.version="${VERSION}" \
  org.opencontainers.image.revision="${REVISION}" \
  org.opencontainers.image.source="${SOURCE_URL}" \
  org.opencontainers.image.licenses="MIT AND CC-BY-4.0 AND ODbL-1.0"

# a system user of its own; /data (DATA_DIR) belongs to it, the code does not
RUN groupadd --system --gid 10001 ipintel \
  && useradd --system --uid 10001 --gid ipintel --home-dir /nonexistent --no-create-home \
  --shell /usr/sbin/nologin ipintel \
  && mkdir /data && chown ipintel:ipintel /data

WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/package.json ./
COPY --from=build /app/tables ./tables
COPY --from=build /app/dist/src ./dist/src
# the page's renderer as tsc emits it beside dist/src (src/web imports ../../web/render.js)
COPY --from=build /app/dist/web ./dist/web
# the service itself runs as its bundle (scripts/bundle.ts); dist/src serves the CLI and scripts
COPY --from=build /app/dist/bundle ./dist/bundle
COPY --from=build /app/dist/native ./dist/native
COPY --from=build /app/dist/scripts/update-data.js /app/dist/scripts/mcp-stdio.js ./dist/scripts/
COPY resources/asn-classes.csv ./resources/
# the web page's files are served as they are in the repository (src/web/page-assets.ts)
COPY web/ ./web/

# GLIBC_TUNABLES and the semi-space size: what `npm start` sets (see the
# docs/operations.md)
ENV NODE_ENV=production \
  PORT=8080 \
  DATA_DIR=/data \
  GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=131072
USER ipintel
VOLUME ["/data"]
EXPOSE 8080
# liveness with node alone (slim images have no curl); 3 s bound per try
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz',{signal:AbortSignal.timeout(3000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node is PID 1 and handles SIGTERM itself (stop accepting, drain, exit 0);
# early-stop.js makes a SIGTERM during start-up exit 0 at once
CMD ["node", "--import", "/app/dist/src/kit/early-stop.js", "--max-semi-space-size=4", "dist/bundle/main.js"]
