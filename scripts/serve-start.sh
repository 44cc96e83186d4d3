#!/usr/bin/env bash
# serve-start.sh REPO [BINARY] [RUNS]: how soon `contractbot serve` answers its first
# page after it starts, and how much memory it holds, with a cold versions-index cache
# (an empty --cache-dir) and then a warm one (the cache the cold run left), side by
# side in one run; RUNS (default 1) repeats the pair.
#
# Each run starts serve under /usr/bin/time -v and records, from the moment it is
# started: the first 200 of the catalog (/), the registry ready (/readyz says "ready",
# not "indexing"), the full tree loaded (a subject page, which waits for it), then
# fetches a few more pages and a registry version, waits for the health report's
# audit of the history to finish (/report), stops serve with SIGINT and reads its
# maximum RSS and CPU time. Needs curl and GNU time.
#
#   go run ./cmd/synthrepo -subjects 10000 -commits 5000 -seed 1 -checkout /tmp/s10k
#   scripts/serve-start.sh /tmp/s10k
set -euo pipefail
repo=${1:?usage: serve-start.sh REPO [BINARY] [RUNS]}
bin=${2:-}
runs=${3:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$bin" ]; then
	bin=$work/contractbot
	go build -o "$bin" ./cmd/contractbot
fi
port=$((20000 + RANDOM % 20000))
base=http://127.0.0.1:$port

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# wait_for URL PATTERN: poll until the body of URL (any status) matches PATTERN.
wait_for() {
	local i
	for i in $(seq 1 12000); do
		if [[ "$(curl -s --max-time 60 "$1" 2>/dev/null || true)" =~ $2 ]]; then return 0; fi
		sleep 0.01
	done
	echo "serve-start: $1 never matched $2" >&2
	return 1
}

one() { # one LABEL CACHE-DIR
	local label=$1 cache=$2 t0 first firstcpu ready tree done subject pid
	t0=$(now)
	/usr/bin/time -v -o "$work/time" "$bin" serve --repo "$repo" --addr "127.0.0.1:$port" --cache-dir "$cache" >/dev/null 2>"$work/log.$label" &
	local timepid=$!
	for i in $(seq 1 12000); do
		if [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 60 "$base/" 2>/dev/null)" = 200 ]; then break; fi
		sleep 0.01
	done
	first=$(since "$t0")
	# CPU time of serve up to the first page, which the machine's load does not change
	pid=$(pgrep -P "$timepid")
	firstcpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$pid/stat")
	wait_for "$base/readyz" '^ready'
	ready=$(since "$t0")
	subject=$(curl -s "$base/registry/subjects" | tr -d '[]"' | tr , '\n' | head -1 || true)
	curl -s -o /dev/null "$base/subjects/$subject"
	tree=$(since "$t0")
	for p in "/?page=3" "/?q=order" "/calendar" "/teams" "/registry/subjects/$subject/versions/latest"; do
		curl -s -o /dev/null "$base$p"
	done
	# The health report's audit of the history (started by the first page served
	# once the tree is loaded) is part of a start: wait for it.
	for i in $(seq 1 600); do
		if ! [[ "$(curl -s --max-time 60 "$base/report" || true)" =~ "Being computed" ]]; then break; fi
		sleep 0.5
	done
	done=$(since "$t0")
	kill -INT "$pid"
	wait "$timepid" || true
	local rss user sys
	rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$work/time")
	user=$(awk -F': ' '/User time/ { print $2 }' "$work/time")
	sys=$(awk -F': ' '/System time/ { print $2 }' "$work/time")
	printf '| %s | %s s (%s s CPU) | %s s | %s s | %s s | %s MB | %s s |\n' "$label" "$first" "$firstcpu" "$ready" "$tree" "$done" "$rss" \
		"$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| run | first page (serve's CPU by then) | registry ready | full tree | health audit done | max RSS | CPU (user+sys) |"
echo "|---|---|---|---|---|---|---|"
for r in $(seq 1 "$runs"); do
	cache=$work/cache.$r
	mkdir -p "$cache"
	one "cold" "$cache"
	one "warm" "$cache"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
