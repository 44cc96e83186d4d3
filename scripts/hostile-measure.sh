#!/bin/sh
# hostile-measure.sh BIN OUT: runs lint, lint --rev and check --rev (and check --format
# github) on every repository hostile-repos.sh built under OUT, each under
# /usr/bin/time -v with a 120 s timeout, and prints one line per run: case, command,
# exit status, wall seconds, CPU seconds (user + system), max RSS in MB, output lines
# (and workflow-command lines).
set -u
bin=${1:?usage: hostile-measure.sh BIN OUT}
out=${2:?usage: hostile-measure.sh BIN OUT}
printf '%-24s %-36s %4s %7s %6s %7s %8s\n' case command exit wall_s cpu_s rss_mb lines
for r in "$out"/*/; do
	name=$(basename "$r")
	for cmd in "lint" "lint --rev hostile" "check --rev hostile" "check --rev hostile --format github"; do
		# shellcheck disable=SC2086
		(cd "$r" && timeout 120 /usr/bin/time -v "$bin" $cmd >/tmp/hostile-out.txt 2>/tmp/hostile-time.txt)
		code=$?
		wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' /tmp/hostile-time.txt | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' /tmp/hostile-time.txt)
		cpu=$(sed -n 's/.*\(User\|System\) time (seconds): //p' /tmp/hostile-time.txt | awk '{ s += $1 } END { printf "%.2f", s }')
		lines=$(wc -l </tmp/hostile-out.txt)
		case $cmd in *github*) lines="$lines ($(grep -c '^::' /tmp/hostile-out.txt) ::)" ;; esac
		printf '%-24s %-36s %4s %7s %6s %7s %8s\n' "$name" "$cmd" "$code" "${wall:-timeout}" "$cpu" "$(( ${rss:-0} / 1024 ))" "$lines"
	done
done
