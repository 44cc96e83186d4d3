package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A consumer file that names its job's Flink SQL (sql:) has a schema change judged
// against the SQL's DDL too: dropping event_time, which the job's source table
// declares but its consumer file does not read, breaks the job (its DDL names a field
// the schema no longer has), so the job's owner signs off, and the reason names the
// file and line. Without sql: the change asks the job nothing.
func TestCheckJudgesTheJobsSQL(t *testing.T) {
	for _, declared := range []bool{false, true} {
		dir, repo := exampleRepo(t)
		job, err := os.ReadFile("../../jobs/flink/dwd-order-detail.sql")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "jobs/flink"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "jobs/flink/dwd-order-detail.sql"), job, 0o644); err != nil {
			t.Fatal(err)
		}
		if declared {
			edit(t, filepath.Join(dir, "contracts/orders/order-created/consumers/dwd-order-detail.yaml"),
				"kind: flink-job\n", "kind: flink-job\nsql: [jobs/flink/dwd-order-detail.sql]\n")
		}
		commit(t, repo, "the job's SQL")
		edit(t, filepath.Join(dir, "contracts/orders/order-created/order_created.avsc"), `},
    {
      "name": "event_time",
      "type": {
        "type": "long",
        "logicalType": "timestamp-micros"
      },
      "doc": "When the event was produced to Kafka (UTC), microsecond precision; used for watermarks."
    }`, `}`)
		commit(t, repo, "drop event_time")
		r, _ := checkJSON(t, "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1")
		var reasons []string
		for _, so := range r.SignOffs {
			for _, f := range so.For {
				if f.Consumer == "dwd-order-detail" {
					reasons = append(reasons, f.Reason)
				}
			}
		}
		want := "the change breaks its Flink SQL: jobs/flink/dwd-order-detail.sql:24:"
		found := strings.Contains(strings.Join(reasons, "\n"), want)
		if found != declared {
			t.Errorf("sql declared %v: dwd-order-detail's sign-off reasons %q, want %q: %v", declared, reasons, want, declared)
		}
	}
}
