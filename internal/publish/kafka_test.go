package publish

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/contractbot/contractbot/internal/events"
)

// TestPublishKafkaOutage publishes the history to Kafka while the brokers refuse
// produce requests for a while, first briefly (the run waits and finishes), then for
// longer than the run allows (it stops unmarked, and a rerun once the cluster is back
// finishes): every event arrives, in order per subject, with the ids of a run to a file.
func TestPublishKafkaOutage(t *testing.T) {
	_, repo, head := history(t)
	ref := newRun(t)
	if _, err := ref.publish(t, repo, head, func(p *Publisher) { p.Registry = nil }); err != nil {
		t.Fatal(err)
	}
	wantIDs := ids(readEvents(t, ref.events))

	for _, tc := range []struct {
		name  string
		rerun bool
	}{{"brief", false}, {"longer than the run", true}} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "schema-events"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var produced, refused atomic.Int32
			var down atomic.Bool
			c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				if produced.Add(1) == 5 {
					down.Store(true) // the cluster goes down in the middle of the first commit
				}
				if down.Load() {
					refused.Add(1)
					return nil, errors.New("broker down"), true
				}
				return nil, nil, false
			})
			sink, err := events.NewKafka(c.ListenAddrs(), "schema-events", kgo.RetryBackoffFn(func(int) time.Duration { return 20 * time.Millisecond }), kgo.MetadataMinAge(100*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			defer sink.Close()
			m, err := OpenFileMarker(filepath.Join(t.TempDir(), "state.json"))
			if err != nil {
				t.Fatal(err)
			}
			p := &Publisher{Repo: repo, Sink: sink, Marker: m, Source: "https://github.com/acme/contracts"}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if tc.rerun {
				short, cancelShort := context.WithTimeout(ctx, 700*time.Millisecond)
				_, err := p.Publish(short, head)
				cancelShort()
				if err == nil {
					t.Fatal("the run finished while the cluster was down")
				}
				if done, _ := m.Done(context.Background(), head.String()); done {
					t.Fatal("the head was marked although its events were not delivered")
				}
				down.Store(false)
				if _, err := p.Publish(ctx, head); err != nil {
					t.Fatalf("rerun: %v", err)
				}
			} else {
				go func() {
					time.Sleep(500 * time.Millisecond)
					down.Store(false)
				}()
				if _, err := p.Publish(ctx, head); err != nil {
					t.Fatal(err)
				}
			}
			if refused.Load() == 0 {
				t.Fatal("no produce request was refused: the outage was not exercised")
			}
			got := consumeAll(t, c, len(wantIDs))
			if g := ids(got); len(g) != len(wantIDs) || !equal(g, wantIDs) {
				t.Errorf("ids from Kafka differ from a run to a file:\n got %v\nwant %v", g, wantIDs)
			}
			inOrder(t, got)
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// consumeAll reads the topic until n distinct events arrived, then a little longer to
// catch duplicates, bounded in time.
func consumeAll(t *testing.T, c *kfake.Cluster, n int) []events.Event {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics("schema-events"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []events.Event
	seen := map[string]bool{}
	for len(seen) < n {
		f := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%d events of %d consumed before the deadline", len(seen), n)
		}
		for _, r := range f.Records() {
			var e events.Event
			if err := json.Unmarshal(r.Value, &e); err != nil {
				t.Fatal(err)
			}
			if string(r.Key) != e.Subject {
				t.Errorf("key %q for %s", r.Key, e.Subject)
			}
			seen[e.ID] = true
			out = append(out, e)
		}
	}
	return out
}
