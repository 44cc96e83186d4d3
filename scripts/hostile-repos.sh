#!/bin/sh
# hostile-repos.sh OUT: builds one Git repository per hostile input of issue 13 under
# OUT, each a copy of the example tree on branch main with the hostile change
# committed on branch hostile. docs/performance.md ("Hostile pull requests") runs
# lint, lint --rev and check --rev on each under /usr/bin/time -v.
#
#   deep-proto            adds a subject whose 874-byte .proto reuses messages 22 levels deep
#   deep-proto-retype     main has that subject; the branch retypes the leaf int32 -> string
#   reused-avro           adds a subject whose 2.7 KB Avro schema reuses records 20 levels deep
#   reused-avro-retype    main has that subject; the branch retypes the leaf int -> string
#   wide-proto-20k-retype   20,000 fields int32 -> string
#   wide-proto-29k-retype   29,000 fields int32 -> string (near the 30,000-declaration limit)
#   wide-proto-100k-retype  100,000 fields int32 -> string
#   wide-proto-100k-add     1 field -> 100,000 fields
#   big-consumer          a 200 MB consumer file that compresses to about 1 MB, a loose object
#   big-contract          contract.yaml of orders/order-created over the 1 MiB limit
#   yaml-deep-30000       a consumer file whose reads: is 30,000 [ then 30,000 ] (60 KB)
#   yaml-deep-60000       the same with 60,000
#   oneline-proto         adds a subject whose .proto holds 29,000 fields on one line
#   huge-enum-proto       adds a subject whose .proto holds 29,000 enum values on one line
#   wide-avro-100000      adds a subject whose Avro record has 100,000 fields (one line)
#   wide-avro-210000      the same with 210,000 fields (7.7 MiB, under the 8 MiB file limit)
#   wide-avro-33000-change main has an Avro record of 33,000 long fields; the branch renames
#                         and retypes every one (near the 100,000-value limit)
#   huge-enum-avro-change main has an Avro enum of 400,000 symbols; the branch renames them all
#   wide-proto-29k-history main has 8 versions of a 29,000-field message at BACKWARD_TRANSITIVE,
#                         each adding a field; the branch adds one more (the transitive
#                         check's history budget)
set -eu
out=${1:?usage: hostile-repos.sh OUT}
root=$(cd "$(dirname "$0")/.." && pwd)
synth() { (cd "$root" && go run ./cmd/synthrepo -hostile "$1"); }

# subject DIR NAME FORMAT FILE SCHEMA-NAME [MESSAGE] [READS]: writes a subject folder.
subject() {
	d=$1/contracts/hostile/$2
	mkdir -p "$d/consumers"
	{
		echo "subject: hostile.$2-value"
		echo "format: $3"
		echo "schema: $4"
		echo "compatibility: BACKWARD"
		echo "owner: payments"
		echo "tier: standard"
		echo "signoff_hours: 24"
		if [ -n "${6:-}" ]; then echo "message: $6"; fi
	} >"$d/contract.yaml"
	synth "$5" >"$d/$4"
	printf 'name: reader\nowner: risk\nkind: service\nreads: [%s]\n' "${7:-*}" >"$d/consumers/reader.yaml"
}

# repo NAME: a fresh copy of the example tree, committed on main.
repo() {
	r=$out/$1
	rm -rf "$r"
	mkdir -p "$r"
	cp -r "$root/contracts" "$root/calendar" "$root/CODEOWNERS" "$r/"
	git -C "$r" init -q -b main
	git -C "$r" add -A
	git -C "$r" -c user.name=t -c user.email=t@example.com commit -qm base
}
commit() { git -C "$1" add -A && git -C "$1" -c user.name=t -c user.email=t@example.com commit -qm "$2"; }

repo deep-proto
git -C "$out/deep-proto" checkout -qb hostile
subject "$out/deep-proto" deep-proto protobuf deep.proto deep-proto hostile.v1.M22 'a.b.a.b.a.b.a.b.a.b.a.b.a.b.a.b.a.b.a.b.a.b.x, b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.x'
commit "$out/deep-proto" "a proto whose messages reuse each other 22 levels deep"

repo deep-proto-retype
subject "$out/deep-proto-retype" deep-proto protobuf deep.proto deep-proto hostile.v1.M22 'a.b.a.b.a.b.a.b.a.b.a.b.a.b.a.b.a.b.a.b.a.b.x'
commit "$out/deep-proto-retype" "deep proto"
git -C "$out/deep-proto-retype" checkout -qb hostile
synth deep-proto-string >"$out/deep-proto-retype/contracts/hostile/deep-proto/deep.proto"
commit "$out/deep-proto-retype" "retype the leaf"

repo reused-avro
git -C "$out/reused-avro" checkout -qb hostile
subject "$out/reused-avro" reused-avro avro reused.avsc reused-avro '' 'root.a.b.c.a.b.c.a.b.c.a.b.c.a.b.c.a.b.c.a.b.x'
commit "$out/reused-avro" "an Avro schema reusing records 20 levels deep"

repo reused-avro-retype
subject "$out/reused-avro-retype" reused-avro avro reused.avsc reused-avro '' 'root.a.b.c.a.b.c.a.b.c.a.b.c.a.b.c.a.b.c.a.b.x'
commit "$out/reused-avro-retype" "reused avro"
git -C "$out/reused-avro-retype" checkout -qb hostile
synth reused-avro-string >"$out/reused-avro-retype/contracts/hostile/reused-avro/reused.avsc"
commit "$out/reused-avro-retype" "retype the leaf"

for n in 20k 29k 100k; do
	repo wide-proto-$n-retype
	subject "$out/wide-proto-$n-retype" wide protobuf wide.proto wide-proto-$n '' 'f1, f2'
	commit "$out/wide-proto-$n-retype" "wide proto"
	git -C "$out/wide-proto-$n-retype" checkout -qb hostile
	synth wide-proto-$n-string >"$out/wide-proto-$n-retype/contracts/hostile/wide/wide.proto"
	commit "$out/wide-proto-$n-retype" "retype every field"
done

repo wide-proto-100k-add
subject "$out/wide-proto-100k-add" wide protobuf wide.proto wide-proto-1 '' 'f1'
commit "$out/wide-proto-100k-add" "one field"
git -C "$out/wide-proto-100k-add" checkout -qb hostile
synth wide-proto-100k >"$out/wide-proto-100k-add/contracts/hostile/wide/wide.proto"
commit "$out/wide-proto-100k-add" "add 99,999 fields"
repo big-consumer
git -C "$out/big-consumer" checkout -qb hostile
{
	printf 'name: big\nowner: data-warehouse\nkind: flink-job\nreads:\n'
	# field names that repeat, with a rare random one: about 200:1 under zlib
	awk 'BEGIN { srand(1); for (n = 0; n < 200 * 1048576; n += 15) {
		if (rand() < 0.0005) printf "  - f%09d\n", int(rand() * 1e9); else printf "  - field_%04d\n", n / 15 % 64 } }'
} >"$out/big-consumer/contracts/orders/order-created/consumers/big.yaml"
git -C "$out/big-consumer" -c core.looseCompression=9 add -A
commit "$out/big-consumer" "a 200 MB consumer file"

repo big-contract
git -C "$out/big-contract" checkout -qb hostile
awk 'BEGIN { for (i = 0; i < 30000; i++) print "# " sprintf("%78s", "") }' >>"$out/big-contract/contracts/orders/order-created/contract.yaml"
commit "$out/big-contract" "a contract.yaml over 1 MiB"
for n in 30000 60000; do
	repo yaml-deep-$n
	git -C "$out/yaml-deep-$n" checkout -qb hostile
	{
		printf 'name: deep\nowner: data-warehouse\nkind: service\nreads: '
		awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) printf "["; for (i = 0; i < n; i++) printf "]"; print "" }'
	} >"$out/yaml-deep-$n/contracts/orders/order-created/consumers/deep.yaml"
	commit "$out/yaml-deep-$n" "reads nested $n levels deep"
done

# plain DIR NAME FORMAT FILE: a subject folder whose schema text comes from stdin.
plain() {
	d=$1/contracts/hostile/$2
	mkdir -p "$d"
	printf 'subject: hostile.%s-value\nformat: %s\nschema: %s\ncompatibility: BACKWARD\nowner: payments\ntier: standard\n' "$2" "$3" "$4" >"$d/contract.yaml"
	cat >"$d/$4"
}

repo oneline-proto
git -C "$out/oneline-proto" checkout -qb hostile
awk 'BEGIN { printf "syntax = \"proto3\"; package hostile.v1; message W {"; for (i = 1; i <= 29000; i++) printf " int32 f%d = %d;", i, i; print " }" }' |
	plain "$out/oneline-proto" oneline protobuf w.proto
commit "$out/oneline-proto" "29,000 fields on one line"

repo huge-enum-proto
git -C "$out/huge-enum-proto" checkout -qb hostile
awk 'BEGIN { printf "syntax = \"proto3\"; package hostile.v1; enum E {"; for (i = 0; i < 29000; i++) printf " E_%d = %d;", i, i; print " }" }' |
	plain "$out/huge-enum-proto" huge-enum protobuf w.proto
commit "$out/huge-enum-proto" "29,000 enum values on one line"

for n in 100000 210000; do
	repo wide-avro-$n
	git -C "$out/wide-avro-$n" checkout -qb hostile
	awk -v n=$n 'BEGIN { printf "{\"type\":\"record\",\"name\":\"W\",\"namespace\":\"hostile.v1\",\"fields\":["
		for (i = 1; i <= n; i++) printf "%s{\"name\":\"f%d\",\"type\":\"long\"}", (i > 1 ? "," : ""), i; print "]}" }' |
		plain "$out/wide-avro-$n" wide-avro avro w.avsc
	commit "$out/wide-avro-$n" "an Avro record of $n fields"
done

wide_avsc() { awk -v p=$1 -v t=$2 'BEGIN { printf "{\"type\":\"record\",\"name\":\"W\",\"namespace\":\"hostile.v1\",\"fields\":["
	for (i = 1; i <= 33000; i++) printf "%s{\"name\":\"%s%d\",\"type\":\"%s\"}", (i > 1 ? "," : ""), p, i, t; print "]}" }'; }
repo wide-avro-33000-change
wide_avsc f long | plain "$out/wide-avro-33000-change" wide-avro avro w.avsc
mkdir -p "$out/wide-avro-33000-change/contracts/hostile/wide-avro/consumers"
printf 'name: reader\nowner: risk\nkind: service\nreads: ["*"]\n' >"$out/wide-avro-33000-change/contracts/hostile/wide-avro/consumers/reader.yaml"
commit "$out/wide-avro-33000-change" "an Avro record of 33,000 fields"
git -C "$out/wide-avro-33000-change" checkout -qb hostile
wide_avsc g string >"$out/wide-avro-33000-change/contracts/hostile/wide-avro/w.avsc"
commit "$out/wide-avro-33000-change" "every field renamed and retyped"

enum_avsc() { awk -v p=$1 'BEGIN { printf "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"hostile.v1\",\"fields\":[{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":["
	for (i = 0; i < 400000; i++) printf "%s\"%s%d\"", (i > 0 ? "," : ""), p, i; print "]}}]}" }'; }
repo huge-enum-avro-change
enum_avsc S | plain "$out/huge-enum-avro-change" huge-enum avro e.avsc
commit "$out/huge-enum-avro-change" "an enum of 400,000 symbols"
git -C "$out/huge-enum-avro-change" checkout -qb hostile
enum_avsc T >"$out/huge-enum-avro-change/contracts/hostile/huge-enum/e.avsc"
commit "$out/huge-enum-avro-change" "every symbol renamed"
wide_proto() { awk -v n=$1 'BEGIN { print "syntax = \"proto3\";\npackage hostile.v1;\n\nmessage W {"
	for (i = 1; i <= n; i++) printf "  int32 f%d = %d;\n", i, i; print "}" }'; }
repo wide-proto-29k-history
wide_proto 29000 | plain "$out/wide-proto-29k-history" wide protobuf wide.proto
sed -i 's/compatibility: BACKWARD/compatibility: BACKWARD_TRANSITIVE/' "$out/wide-proto-29k-history/contracts/hostile/wide/contract.yaml"
commit "$out/wide-proto-29k-history" "version 1: 29,000 fields"
for v in 2 3 4 5 6 7 8; do
	wide_proto $((29000 + v - 1)) >"$out/wide-proto-29k-history/contracts/hostile/wide/wide.proto"
	commit "$out/wide-proto-29k-history" "version $v: one more field"
done
git -C "$out/wide-proto-29k-history" checkout -qb hostile
wide_proto 29008 >"$out/wide-proto-29k-history/contracts/hostile/wide/wide.proto"
commit "$out/wide-proto-29k-history" "one more field"

echo "built under $out: $(ls "$out" | tr '\n' ' ')"
