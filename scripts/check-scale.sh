#!/bin/sh
# check-scale.sh BIN OUT [RUNS]: the same change at 10,000 and 50,000 subjects.
# Generates OUT/10k and OUT/50k (cmd/synthrepo, 50 commits, seed 1), then commits in
# each what BenchmarkCheck commits (an optional field added to the first 100 Avro
# schemas in path order), then times `BIN check --rev HEAD --against HEAD~1`
# alternately on the two: without a cache, then with --cache-dir (the first run of
# each size fills its cache, the others read it). Prints one line per run: size,
# cache, CPU seconds (user + system), wall seconds, max RSS in MB.
set -eu
bin=${1:?usage: check-scale.sh BIN OUT [RUNS]}
out=${2:?usage: check-scale.sh BIN OUT [RUNS]}
runs=${3:-5}
for n in 10 50; do
	dir=$out/${n}k
	if [ ! -d "$dir/.git" ]; then
		go run ./cmd/synthrepo -subjects "${n}000" -commits 50 -seed 1 -checkout "$dir" >/dev/null
		find "$dir/contracts" -name '*.avsc' | sort | head -100 | while read -r f; do
			sed -i '0,/"fields": *\[/s//"fields": [{"name": "bench_note", "type": ["null", "string"], "default": null}, /' "$f"
		done
		git -C "$dir" -c user.name=b -c user.email=b@example.com commit -q -a -m "add an optional field to 100 subjects"
	fi
	rm -rf "$out/cache-${n}k"
done
printf '%-5s %-6s %6s %7s %7s\n' size cache cpu_s wall_s rss_mb
for cache in none dir; do
	i=0
	while [ $i -lt "$runs" ]; do
		for n in 10 50; do
			flag=""
			[ $cache = dir ] && flag="--cache-dir $out/cache-${n}k"
			# shellcheck disable=SC2086
			/usr/bin/time -q -f '%U %S %e %M' -o "$out/time.txt" "$bin" check --repo "$out/${n}k" --rev HEAD --against HEAD~1 --now 2026-12-01T09:00:00Z $flag >/dev/null 2>&1 || true
			awk -v n="${n}k" -v c=$cache '{ printf "%-5s %-6s %6.2f %7.2f %7d\n", n, c, $1 + $2, $3, $4 / 1024 }' "$out/time.txt"
		done
		i=$((i + 1))
	done
done
