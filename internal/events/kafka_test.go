package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const topic = "schema-events"

func cluster(t *testing.T) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, topic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// eventsFor makes n events over three subjects, versions increasing per subject.
func eventsFor(n int) []Event {
	var out []Event
	version := map[string]int{}
	for i := 0; i < n; i++ {
		s := fmt.Sprintf("domain.subject-%d-value", i%3)
		version[s]++
		d := sample().Data
		d.Subject, d.Version, d.MergeCommit = s, version[s], fmt.Sprintf("%040x", i+1)
		out = append(out, New("https://github.com/acme/contracts", time.Unix(int64(i), 0), d))
	}
	return out
}

// consume reads n records back from the topic, failing after a bounded wait.
func consume(t *testing.T, c *kfake.Cluster, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []*kgo.Record
	for len(out) < n {
		f := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consumed %d records of %d before the deadline", len(out), n)
		}
		out = append(out, f.Records()...)
	}
	// Nothing more arrives (no duplicates from retries).
	short, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	out = append(out, cl.PollFetches(short).Records()...)
	return out
}

// checkDelivered checks that every event arrived once, keyed by subject, in order per
// subject.
func checkDelivered(t *testing.T, sent []Event, got []*kgo.Record) {
	t.Helper()
	if len(got) != len(sent) {
		t.Fatalf("%d records for %d events", len(got), len(sent))
	}
	partition := map[string]int32{}
	last := map[string]int{}
	for _, r := range got {
		var e Event
		if err := json.Unmarshal(r.Value, &e); err != nil {
			t.Fatal(err)
		}
		if string(r.Key) != e.Subject {
			t.Errorf("key %q for subject %s", r.Key, e.Subject)
		}
		if p, ok := partition[e.Subject]; ok && p != r.Partition {
			t.Errorf("%s on partitions %d and %d", e.Subject, p, r.Partition)
		}
		partition[e.Subject] = r.Partition
		if e.Data.Version != last[e.Subject]+1 {
			t.Errorf("%s: version %d after %d", e.Subject, e.Data.Version, last[e.Subject])
		}
		last[e.Subject] = e.Data.Version
		if h := r.Headers; len(h) != 2 || string(h[1].Value) != e.ID {
			t.Errorf("headers %v", h)
		}
	}
}

func TestKafkaProduceConsume(t *testing.T) {
	c := cluster(t)
	k, err := NewKafka(c.ListenAddrs(), topic)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	sent := eventsFor(9)
	for _, e := range sent {
		if err := k.Send(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	checkDelivered(t, sent, consume(t, c, len(sent)))
}

// TestKafkaClusterDown: the brokers refuse every produce request for a while during a
// publish, then come back; Send waits, and every event is delivered once, in order
// per subject.
func TestKafkaClusterDown(t *testing.T) {
	c := cluster(t)
	var down atomic.Bool
	var refused atomic.Int32
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if down.Load() {
			refused.Add(1)
			return nil, errors.New("broker down"), true // the connection is closed
		}
		return nil, nil, false
	})
	k, err := NewKafka(c.ListenAddrs(), topic, kgo.RetryBackoffFn(func(int) time.Duration { return 20 * time.Millisecond }), kgo.MetadataMinAge(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	sent := eventsFor(12)
	for _, e := range sent[:3] { // up, then the cluster goes down mid-publish
		if err := k.Send(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	down.Store(true)
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		for _, e := range sent[3:] {
			if err := k.Send(ctx, e); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	time.Sleep(500 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("publish finished while the cluster was down: %v", err)
	default:
	}
	down.Store(false)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("publish did not finish after the cluster came back")
	}
	if refused.Load() == 0 {
		t.Fatal("no produce request was refused: the outage was not exercised")
	}
	checkDelivered(t, sent, consume(t, c, len(sent)))
}

func TestParseKafka(t *testing.T) {
	b, topic, err := ParseKafka("k1:9092,k2:9092/schema-events")
	if err != nil || len(b) != 2 || topic != "schema-events" {
		t.Errorf("%v %q %v", b, topic, err)
	}
	for _, bad := range []string{"k1:9092", "/t", "k1:9092/"} {
		if _, _, err := ParseKafka(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestKafkaCompression: events are uncompressed unless the sink is told otherwise
// (franz-go's own default, Snappy, is unreadable for some clients); each codec asked
// for is the one the records arrive with.
func TestKafkaCompression(t *testing.T) {
	for _, tc := range []struct {
		name  string
		codec uint8 // the record batch's compression attribute
	}{{"", 0}, {"none", 0}, {"gzip", 1}, {"snappy", 2}, {"lz4", 3}, {"zstd", 4}} {
		t.Run(tc.name, func(t *testing.T) {
			c := cluster(t)
			var opts []kgo.Opt
			if tc.name != "" {
				opt, err := KafkaCompression(tc.name)
				if err != nil {
					t.Fatal(err)
				}
				opts = append(opts, opt)
			}
			k, err := NewKafka(c.ListenAddrs(), topic, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			sent := eventsFor(3)
			for _, e := range sent {
				if err := k.Send(context.Background(), e); err != nil {
					t.Fatal(err)
				}
			}
			for _, r := range consume(t, c, len(sent)) {
				if got := r.Attrs.CompressionType(); got != tc.codec {
					t.Errorf("compression %q: a record arrived with codec %d, want %d", tc.name, got, tc.codec)
				}
			}
		})
	}
	if _, err := KafkaCompression("brotli"); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("an unknown codec: %v", err)
	}
}

// TestKafkaSendTimesOut: a cluster that takes produce requests and never answers
// fails Send after the sink's timeout even when the caller set no deadline.
func TestKafkaSendTimesOut(t *testing.T) {
	c := cluster(t)
	release := make(chan struct{})
	defer close(release)
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		<-release
		return nil, errors.New("released"), true
	})
	k, err := NewKafka(c.ListenAddrs(), topic)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	k.Timeout = 300 * time.Millisecond
	start := time.Now()
	err = k.Send(context.Background(), eventsFor(1)[0])
	if took := time.Since(start); err == nil || took > 10*time.Second {
		t.Fatalf("send to a stalled cluster: %v after %s", err, took)
	}
}
