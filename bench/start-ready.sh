#!/usr/bin/env bash
# Start time with and without feeds, as perf-bar.sh measures `ready`: `npm start` pinned to
# CPU 0, spawn → first 200 of /ip/8.8.8.8 (curl every 10 ms), then the service's RSS 3 s later.
# Interleaved rounds of four cases: BASE and NEW (two built checkouts), each with an empty
# DATA_DIR and with FEEDS_DIR (e.g. made by ../shared/bench/fixture-feeds.mjs). Prints one line
# per start ("<case> <ms> <rss KiB>"), then the medians. Sends nothing beyond loopback.
#   bash bench/start-ready.sh BASE_DIR NEW_DIR FEEDS_DIR [ROUNDS=7] [PORT=18291]
set -u
BASE=$1; NEW=$2; FEEDS=$3; ROUNDS=${4:-7}; PP=${5:-18291}
EMPTY=$(mktemp -d)
trap 'rm -rf "$EMPTY"' EXIT
out=$(mktemp)
one() { # PROJECT DATA_DIR → "ms rss_kib"
  while curl -fs -o /dev/null "http://127.0.0.1:$PP/ip/8.8.8.8"; do sleep 0.2; done
  local t0 pid ms rss
  t0=$(date +%s%N)
  (cd "$1" && DATA_DIR=$2 PORT=$PP HOST=127.0.0.1 RATE_LIMIT_MAX=1000000000 \
    exec setsid taskset -c 0 npm start >/dev/null 2>&1) &
  pid=$!
  for _ in $(seq 1 3000); do curl -fs -o /dev/null "http://127.0.0.1:$PP/ip/8.8.8.8" && break; sleep 0.01; done
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  sleep 3
  rss=$(ps -o rss= -p "$(pgrep -g "$pid" | paste -sd,)" | sort -n | tail -1)
  kill -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  echo "$ms $rss"
}
for _ in $(seq 1 "$ROUNDS"); do
  for c in "base-none $BASE $EMPTY" "base-feeds $BASE $FEEDS" "new-none $NEW $EMPTY" "new-feeds $NEW $FEEDS"; do
    set -- $c
    echo "$1 $(one "$2" "$3")" | tee -a "$out"
  done
done
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)] " " v[1] " " v[NR]}'; }
for c in base-none base-feeds new-none new-feeds; do
  read -r ms lo hi < <(grep "^$c " "$out" | cut -d' ' -f2 | median)
  read -r rss _ _ < <(grep "^$c " "$out" | cut -d' ' -f3 | median)
  echo "$c: ready median $ms ms ($lo–$hi), RSS median $((rss / 1024)) MiB"
done
rm -f "$out"
