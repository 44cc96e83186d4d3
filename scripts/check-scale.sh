#!/bin/sh
# check-scale.sh BIN OUT [RUNS]: a 100-subject change at 2,000 and 100,000 subjects,
# as a commit and in the working tree. Generates OUT/2k and OUT/100k (cmd/synthrepo,
# 50 commits, seed 1: about 2.6 GB and 5 minutes for 100k); commits on a branch
# `change` what BenchmarkCheck commits (an optional field added to the first 100 Avro
# schemas in path order) and leaves the same edit uncommitted in main's working tree.
# One run of each form fills the cache check keeps in .git/contractbot; then, the two
# sizes alternately, it times `BIN check --rev change --against main` (the commit) and
# `BIN check` (the working tree), and `git status` for the floor of any comparison of
# a working tree by stat data. Then, where watchman is installed, the fsmonitor forms:
# each repository gets Git's Watchman hook as core.fsmonitor and a watch (`git
# status` once, then two warm-up checks: the first makes check's baseline), and it
# times `BIN check` (form fsmonitor) and `git status --short` (form fsstatus) with the
# hook; at the end the hook is unset and the watches removed. Prints one line per run:
# size, form, CPU seconds (user + system, the hook's and watchman client's included;
# the watchman server's not), wall seconds, max RSS in MB.
set -eu
bin=${1:?usage: check-scale.sh BIN OUT [RUNS]}
out=${2:?usage: check-scale.sh BIN OUT [RUNS]}
runs=${3:-5}
now=--now=2026-12-01T09:00:00Z
for n in 2 100; do
	dir=$out/${n}k
	if [ ! -d "$dir/.git" ]; then
		go run ./cmd/synthrepo -subjects "${n}000" -commits 50 -seed 1 -checkout "$dir" >/dev/null
		git -C "$dir" checkout -q -b change
		find "$dir/contracts" -name '*.avsc' | sort | head -100 | while read -r f; do
			sed -i '0,/"fields": *\[/s//"fields": [{"name": "bench_note", "type": ["null", "string"], "default": null}, /' "$f"
		done
		git -C "$dir" -c user.name=b -c user.email=b@example.com commit -q -a -m "add an optional field to 100 subjects"
		git -C "$dir" checkout -q main
		git -C "$dir" checkout -q change -- .
		git -C "$dir" reset -q
	fi
	"$bin" check --repo "$dir" --rev change --against main "$now" >/dev/null 2>&1 || true
	"$bin" check --repo "$dir" "$now" >/dev/null 2>&1 || true
done
forms="commit worktree status"
if command -v watchman >/dev/null 2>&1; then
	forms="$forms fsmonitor fsstatus"
else
	echo "no watchman: the fsmonitor forms are not timed (apt-get install watchman)" >&2
fi
# monitor on|off: Git's Watchman hook as core.fsmonitor and a watch of each tree.
monitor() {
	for n in 2 100; do
		dir=$out/${n}k
		if [ "$1" = on ]; then
			mkdir -p "$dir/.git/hooks"
			cp /usr/share/git-core/templates/hooks/fsmonitor-watchman.sample "$dir/.git/hooks/query-watchman"
			chmod +x "$dir/.git/hooks/query-watchman"
			git -C "$dir" config core.fsmonitor .git/hooks/query-watchman
			watchman watch "$dir" >/dev/null
			git -C "$dir" status --short >/dev/null
			"$bin" check --repo "$dir" "$now" >/dev/null 2>&1 || true
			"$bin" check --repo "$dir" "$now" >/dev/null 2>&1 || true
		else
			git -C "$dir" config --unset core.fsmonitor || true
			watchman watch-del "$dir" >/dev/null 2>&1 || true
		fi
	done
}
printf '%-5s %-9s %6s %7s %7s\n' size form cpu_s wall_s rss_mb
for form in $forms; do
	if [ "$form" = fsmonitor ]; then
		# A watch takes one inotify watch a folder: 200,000 at 100,000 subjects.
		if [ "$(cat /proc/sys/fs/inotify/max_user_watches)" -lt 1048576 ]; then
			sysctl -qw fs.inotify.max_user_watches=1048576
		fi
		monitor on
	fi
	i=0
	while [ $i -lt "$runs" ]; do
		for n in 2 100; do
			case $form in
			commit) set -- "$bin" check --repo "$out/${n}k" --rev change --against main "$now" ;;
			worktree) set -- "$bin" check --repo "$out/${n}k" "$now" ;;
			status | fsstatus) set -- git -C "$out/${n}k" status --short ;;
			fsmonitor) set -- "$bin" check --repo "$out/${n}k" "$now" ;;
			esac
			/usr/bin/time -q -f '%U %S %e %M' -o "$out/time.txt" "$@" >/dev/null 2>&1 || true
			awk -v n="${n}k" -v f=$form '{ printf "%-5s %-9s %6.2f %7.2f %7d\n", n, f, $1 + $2, $3, $4 / 1024 }' "$out/time.txt"
		done
		i=$((i + 1))
	done
done
if [ "${forms%fsstatus}" != "$forms" ]; then
	monitor off
fi
