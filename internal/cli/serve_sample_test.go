package cli

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestServeSamplesTopics: serve --sample-brokers samples the contracts' topics on a
// real broker (kfake) in the background; /sample.json has the result and /metrics
// the counts per topic and kind.
func TestServeSamplesTopics(t *testing.T) {
	t.Setenv("CONTRACTBOT_WEBHOOK_SECRET", "")
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("SLACK_BOT_TOKEN", "")
	dir, _ := exampleRepo(t)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "ods_order_snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	prod, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := prod.ProduceSync(ctx, &kgo.Record{Topic: "ods_order_snapshot", Value: []byte(`{"order_id": "O-1", "userid": "u"}`)}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := New()
	var stderr bytes.Buffer
	cmd.SetErr(&stderr)
	cmd.SetOut(io.Discard)
	cmd.SetArgs([]string{"serve", "--addr", addr, "--repo", dir, "--cache-dir", t.TempDir(),
		"--sample-brokers", strings.Join(c.ListenAddrs(), ","), "--sample-interval", "1h"})
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(sctx) }()
	defer func() { stop(); <-done }()
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	var body string
	for code := 0; code != http.StatusOK; {
		if ctx.Err() != nil {
			t.Fatalf("no sampling result: %d %s\n%s", code, body, stderr.String())
		}
		time.Sleep(200 * time.Millisecond)
		code, body = get("/sample.json")
	}
	if !strings.Contains(body, `"topic":"ods_order_snapshot"`) || !strings.Contains(body, `"field":"userid"`) {
		t.Errorf("/sample.json: %s", body)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, page := get("/report")
		// the pages put a line-break point (<wbr>) after each . _ - / of an identifier
		page = strings.ReplaceAll(page, "<wbr>", "")
		if strings.Contains(page, "<code>ods_order_snapshot</code>") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/report does not list the departing topic:\n%s", page)
		}
	}
	if _, m := get("/metrics"); !strings.Contains(m, `contractbot_sample_problem_messages{kind="undeclared-field",topic="ods_order_snapshot"} 1`) {
		t.Errorf("metrics lack the sample's problems")
	}
}
