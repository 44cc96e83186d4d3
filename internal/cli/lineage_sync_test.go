package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// The example tree's consumer files match the Flink SQL of its jobs (as .ci/run checks).
func TestLineageSyncCheckExample(t *testing.T) {
	for _, job := range []string{"dwd-order-detail", "dws-gmv-1min"} {
		out, errOut, code := runCLI(t, "lineage", "sync", "--check", "--repo", "../..", "--job", job, "--owner", "data-warehouse", "../../jobs/flink/"+job+".sql")
		if code != 0 {
			t.Errorf("%s: exit %d\n%s%s", job, code, out, errOut)
		}
		if !strings.Contains(out, "match its SQL (1 file)") {
			t.Errorf("%s: %s", job, out)
		}
	}
}

// A change to the SQL shows as drift; sync writes the file keeping its hand-written
// keys and comments; afterwards --check passes and the tree still lints.
func TestLineageSyncDriftAndWrite(t *testing.T) {
	dir := t.TempDir()
	testutil.CopyExample(t, dir)
	consumer := filepath.Join(dir, "contracts/dw/order-detail/consumers/dws-gmv-1min.yaml")
	before, err := os.ReadFile(consumer)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../../jobs/flink/dws-gmv-1min.sql")
	if err != nil {
		t.Fatal(err)
	}
	// the job now also writes currency and counts orders with a coupon only
	sql := strings.Replace(string(src), "buyer_count)", "buyer_count, currency)", 1)
	sql = strings.Replace(sql, "COUNT(DISTINCT user_id) AS buyer_count", "COUNT(DISTINCT user_id) AS buyer_count,\n  MAX(currency) AS currency", 1)
	sql = strings.Replace(sql, "GROUP BY", "WHERE coupon_code IS NOT NULL\nGROUP BY", 1)
	script := filepath.Join(dir, "dws-gmv-1min.sql")
	if err := os.WriteFile(script, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"lineage", "sync", "--repo", dir, "--job", "dws-gmv-1min", "--owner", "data-warehouse", script}
	out, _, code := runCLI(t, append(args[:2:2], append([]string{"--check"}, args[2:]...)...)...)
	if code != 1 {
		t.Fatalf("--check with drift: exit %d\n%s", code, out)
	}
	checkLineageGolden(t, "sync-check-drift.txt", strings.ReplaceAll(out, dir, "DIR"))
	out, errOut, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("sync: exit %d\n%s%s", code, out, errOut)
	}
	after, err := os.ReadFile(consumer)
	if err != nil {
		t.Fatal(err)
	}
	checkLineageGolden(t, "sync-written.yaml", string(after))
	// everything above reads: and below produces: is byte for byte what it was
	head := string(before[:strings.Index(string(before), "reads:")])
	if !strings.HasPrefix(string(after), head) {
		t.Errorf("the hand-written head of the file changed:\n%s", after)
	}
	if out, _, code := runCLI(t, append(args[:2:2], append([]string{"--check"}, args[2:]...)...)...); code != 0 {
		t.Errorf("--check after sync: exit %d\n%s", code, out)
	}
	if out, errOut, code := runCLI(t, "lint", "--repo", dir); code != 0 {
		t.Errorf("lint after sync: exit %d\n%s%s", code, out, errOut)
	}
}

// A job without a consumer file gets a new one.
func TestLineageSyncNewConsumer(t *testing.T) {
	dir := t.TempDir()
	testutil.CopyExample(t, dir)
	script := filepath.Join(dir, "archive.sql")
	sql := `CREATE TABLE orders (order_id STRING, user_id BIGINT, amount BIGINT, product_info ROW<detail ROW<sku STRING>>)
  WITH ('connector' = 'kafka', 'topic' = 'ods_order_events', 'format' = 'avro-confluent');
CREATE TABLE archive (order_id STRING, sku STRING) WITH ('connector' = 'filesystem', 'path' = 's3://archive');
INSERT INTO archive SELECT order_id, product_info.detail.sku FROM orders WHERE amount > 0;`
	if err := os.WriteFile(script, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "lineage", "sync", "--repo", dir, "--job", "order-archive-s3", "--owner", "data-warehouse", script)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	written, err := os.ReadFile(filepath.Join(dir, "contracts/orders/order-created/consumers/order-archive-s3.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	checkLineageGolden(t, "sync-new.yaml", string(written))
	if out, errOut, code := runCLI(t, "lint", "--repo", dir); code != 0 {
		t.Errorf("lint after sync: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = runCLI(t, "lineage", "sync", "--repo", dir, "--job", "x", "--owner", "nobody", script)
	if code != 2 || !strings.Contains(errOut, `--owner "nobody" is not a team`) {
		t.Errorf("unknown owner: exit %d %q", code, errOut)
	}
}

func TestLintStats(t *testing.T) {
	out, errOut, code := runCLI(t, "lint", "--repo", "../..", "--stats")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	checkLineageGolden(t, "lint-stats.txt", out)
}

// With the events, lint --stats compares the declared reads with the observed ones:
// events.jsonl has dwd-order-detail read its 9 declared fields, dws-gmv-1min 4 of its
// 5 and 2 it does not declare (13 of the tree's 126 declared reads seen, 2 of 15 seen
// reads undeclared), and order-fraud-rules read a topic without field lineage.
func TestLintStatsObserved(t *testing.T) {
	out, errOut, code := runCLI(t, "lint", "--repo", "../..", "--stats", "--openlineage", "testdata/lineage/events.jsonl")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	checkLineageGolden(t, "lint-stats-observed.txt", out)
}
