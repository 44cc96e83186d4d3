package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestSampleFromCapture judges captured records (kcat -J and kafka-console-consumer
// lines) against the example tree: output in text and JSON, and the exit codes.
func TestSampleFromCapture(t *testing.T) {
	r := testutil.ExampleRepo(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := `{"order_id": "O-1", "userId": "u-42", "status": "PAID", "amount": 1999, "currency": "CNY", "updated_at": 1764000000000}`
	kcat := write("kcat.jsonl", strings.Join([]string{
		`{"topic":"ods_order_snapshot","partition":0,"offset":10,"tstype":"create","ts":1764000000000,"broker":1,"key":"O-1","payload":` + quoteJSON(good) + `}`,
		`{"topic":"ods_order_snapshot","partition":0,"offset":11,"tstype":"create","ts":1764000000001,"broker":1,"key":"O-2","payload":` +
			quoteJSON(strings.Replace(good, `"userId"`, `"userid"`, 1)) + `}`,
		`{"topic":"ods_order_snapshot","partition":1,"offset":3,"tstype":"create","ts":1764000000002,"broker":1,"key":"O-3","payload":` +
			quoteJSON(strings.Replace(good, `"amount": 1999`, `"amount": 1999, "order_type": "PRESALE"`, 1)) + `}`,
		`{"topic":"ods_order_events","partition":0,"offset":7,"broker":1,"key":null,"payload":"\u0000\u0000\u0000\u0010\u0002"}`,
		"",
	}, "\n"))
	out, stderr, code := runCLI(t, "sample", "--repo", r.Dir, "--from", kcat)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", code, stderr)
	}
	goldenFile(t, "testdata/sample/kcat.txt", out)
	out, _, _ = runCLI(t, "sample", "--repo", r.Dir, "--from", kcat, "--format", "json")
	goldenFile(t, "testdata/sample/kcat.json", out)

	// The health report lists the topics whose data departs from the contract.
	sampled := write("sample.json", out)
	rep, stderr, code := runCLI(t, "report", "--repo", r.Dir, "--sample", sampled, "--now", "2026-12-01T09:00:00Z")
	if code != 0 || !strings.Contains(rep, "topics whose data departs from the contract (2 of 2 sampled):\n  sample: "+sampled+"\n"+
		"  ods_order_events (orders.order-created-value): 0 of 1 message(s) conform; unknown-schema-id\n"+
		"  ods_order_snapshot (orders.order-snapshot-value): 1 of 3 message(s) conform; undeclared-field, missing-field\n") {
		t.Errorf("report --sample: exit %d %s\n%s", code, stderr, rep)
	}
	if _, stderr, code := runCLI(t, "report", "--repo", r.Dir, "--sample", kcat); code != 2 || !strings.Contains(stderr, "not the output of contractbot sample") {
		t.Errorf("report --sample with a capture: exit %d %s", code, stderr)
	}

	console := write("console.txt", "CreateTime:1764000000000\tPartition:0\tOffset:5\tO-1\t"+good+"\n")
	out, stderr, code = runCLI(t, "sample", "--repo", r.Dir, "--from", console, "--topic", "ods_order_snapshot")
	if code != 0 {
		t.Fatalf("exit %d, want 0 for conforming records: %s%s", code, out, stderr)
	}
	goldenFile(t, "testdata/sample/console.txt", out)

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", console}, "console.txt:1: a kafka-console-consumer line does not name its topic"},
		{[]string{"--from", console, "--topic", "ods_nowhere"}, `no subject of the contract has topic "ods_nowhere"`},
		{[]string{"--from", write("bad.jsonl", `{"topic": "ods_order_snapshot", "payload": "x"}`)}, `bad.jsonl:1: a kcat -J record needs`},
		{[]string{}, "name the brokers to read"},
		{[]string{"--from", console, "--format", "xml"}, `unknown --format "xml"`},
		{[]string{"--brokers", "127.0.0.1:1", "--timeout", "2s", "--topic", "ods_order_snapshot"}, "could not be reached"},
	} {
		_, stderr, code := runCLI(t, append([]string{"sample", "--repo", r.Dir}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("sample %v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		if c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	b.WriteByte('"')
	return b.String()
}
