#!/bin/bash
# lineage-budget.sh BIN MODE N FIELDS PORT: starts BIN serve on a clone of this
# repository, posts N OpenLineage events made from the adapted Flink example with
# FIELDS more columnLineage output fields each, then times GET /lineage and prints
# serve's RSS. MODE qa: one job, N runs, inputs x0..x(FIELDS-1) (the QA's F5 case:
# 16 events of 30,000 fields, 3.5 MB each); MODE wide: N jobs (namespaces), each
# with its own input fields (the worst an event within the budgets can do).
set -euo pipefail
bin=$1; mode=$2; n=$3; fields=$4; port=$5
top=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$top" "$work/repo"
python3 - "$mode" "$n" "$fields" "$work/events.jsonl" "$top/internal/lineage/openlineage/testdata/adapted/flink-dwd-order-detail-complete.json" <<'PY'
import json, sys, uuid
mode, n, fields, out, src = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
base = json.load(open(src))
with open(out, 'w') as f:
    for k in range(n):
        e = json.loads(json.dumps(base))
        e['run']['runId'] = str(uuid.UUID(int=k + 1, version=4))
        if mode == 'wide':
            e['job']['namespace'] = 'flink-jobs-%d' % k
        cl = e['outputs'][0]['facets']['columnLineage']['fields']
        tmpl = {a: b for a, b in cl['order_id']['inputFields'][0].items() if a != 'transformations'}
        for i in range(fields):
            inp = dict(tmpl)
            inp['field'] = 'x%d_%d' % (k, i) if mode == 'wide' else 'x%d' % i
            cl['f%d' % i] = {'inputFields': [inp]}
        f.write(json.dumps(e, separators=(',', ':')) + '\n')
PY
branch=$(git -C "$work/repo" rev-parse --abbrev-ref HEAD)
"$bin" serve --repo "$work/repo" --branch "$branch" --addr "127.0.0.1:$port" --cache-dir "$work/cache" --lineage-events "$work/kept.jsonl" >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 120); do curl -sf -o /dev/null "http://127.0.0.1:$port/readyz" && break; sleep 1; done
curl -sf -o /dev/null "http://127.0.0.1:$port/lineage"
echo "event size: $(head -1 "$work/events.jsonl" | wc -c) bytes; idle RSS $(awk '/VmRSS/ {print $2}' /proc/$pid/status) kB"
codes=""
while IFS= read -r line; do
  codes="$codes $(printf '%s' "$line" | curl -s -o /dev/null -w '%{http_code}' -XPOST -H 'Content-Type: application/json' --data-binary @- "http://127.0.0.1:$port/api/v1/lineage")"
done <"$work/events.jsonl"
echo "POST answers:$codes"
cpu() { awk '{print $14 + $15}' /proc/$pid/stat; }
for i in 1 2 3; do # a new query string each time: the page is rendered, not served from memory
  c0=$(cpu)
  t=$(curl -s -o "$work/page.html" -w '%{time_total}' "http://127.0.0.1:$port/lineage?run=$i")
  echo "GET /lineage: ${t} s wall, $(( ($(cpu) - c0) * 10 )) ms CPU in serve, $(wc -c <"$work/page.html") bytes"
done
echo "serve RSS $(awk '/VmRSS/ {print $2}' /proc/$pid/status) kB, peak $(awk '/VmHWM/ {print $2}' /proc/$pid/status) kB; load $(cut -d' ' -f1-3 /proc/loadavg)"
kill "$pid"; wait "$pid" 2>/dev/null || true
