package bot

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	botslack "github.com/contractbot/contractbot/internal/bot/slack"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/sample"
	"github.com/contractbot/contractbot/internal/testutil"
	"github.com/contractbot/contractbot/internal/versions"
)

// TestSampleAlertsOncePerProblem: two replicas sample a topic whose messages depart
// from the contract (a real broker, kfake) and tell Slack: each problem reaches the
// owner's channel and the channels of the teams whose consumers read the field, once
// across both replicas and their rounds; the metrics count the problems per kind.
func TestSampleAlertsOncePerProblem(t *testing.T) {
	r := testutil.ExampleRepo(t)
	head, err := r.Git.Head()
	if err != nil {
		t.Fatal(err)
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "ods_order_snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	prod, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	good := `{"order_id": "O-1", "userId": "u-42", "status": "PAID", "amount": 1999, "currency": "CNY", "updated_at": 1764000000000}`
	if err := prod.ProduceSync(ctx,
		&kgo.Record{Topic: "ods_order_snapshot", Value: []byte(good)},
		&kgo.Record{Topic: "ods_order_snapshot", Value: []byte(strings.Replace(good, `"userId"`, `"userid"`, 1))},
		&kgo.Record{Topic: "ods_order_snapshot", Value: []byte(strings.Replace(good, `1999`, `"1999"`, 1))},
	).FirstErr(); err != nil {
		t.Fatal(err)
	}
	load := func() (sample.Contract, error) {
		src, err := contract.NewGitSource(r.Git, head.Hash().String())
		if err != nil {
			return sample.Contract{}, err
		}
		tree, err := contract.Load(src)
		if err != nil {
			return sample.Contract{}, err
		}
		ix, err := versions.Build(r.Git, head.Hash())
		return sample.Contract{Tree: tree, Index: ix, Read: func(v versions.Version) ([]byte, error) { return ix.Schema(r.Git, v) }}, err
	}
	sl, posted := slackWithHistory(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg := prometheus.NewRegistry()
	for replica := range 2 {
		alerts := &SampleAlerts{Notify: botslack.New("xoxb-test", sl.GetAPIURL()), Log: log}
		w := &sample.Watch{Kafka: sample.Kafka{Brokers: c.ListenAddrs(), MaxMessages: 10}, Contract: contractFunc(load), Alerts: alerts, Log: log}
		if replica == 0 {
			if err := w.RegisterMetrics(reg); err != nil {
				t.Fatal(err)
			}
		}
		for range 2 {
			if err := w.Round(ctx); err != nil {
				t.Fatal(err)
			}
		}
		snap := w.Latest()
		i := slices.IndexFunc(snap.Result.Topics, func(tr sample.TopicResult) bool { return tr.Topic == "ods_order_snapshot" })
		if i < 0 || snap.Result.Topics[i].Messages != 3 || snap.Result.Topics[i].Conforming != 1 {
			t.Fatalf("replica %d's latest: %+v", replica, snap.Result)
		}
	}
	var got []string
	for _, m := range posted() {
		kind := strings.SplitN(strings.SplitN(m.Text, "*", 3)[1], "*", 2)[0]
		got = append(got, m.Channel+" "+kind)
	}
	slices.Sort(got)
	want := []string{
		"#bi-dashboards type-mismatch", "#dw-realtime missing-field", "#dw-realtime type-mismatch",
		"#orders missing-field", "#orders type-mismatch", "#orders undeclared-field",
	}
	if !slices.Equal(got, want) {
		t.Errorf("alerts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mf := range mfs {
		if mf.GetName() != "contractbot_sample_problem_messages" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == "type-mismatch" && m.GetGauge().GetValue() == 1 {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no contractbot_sample_problem_messages{kind=type-mismatch} 1 in %v", mfs)
	}
}

// contractFunc is a sample.ContractLoader that is a function.
type contractFunc func() (sample.Contract, error)

func (f contractFunc) Load() (sample.Contract, error) { return f() }
