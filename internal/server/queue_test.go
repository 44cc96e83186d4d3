package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestQueueOrdersAndSupersedes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := NewQueue(ctx, QueueConfig{Workers: 2, MaxPending: 100})
	var mu sync.Mutex
	var log []string
	gate := make(chan struct{})
	job := func(key, name string, wait bool) *Job {
		return &Job{Key: key, Run: func(context.Context) error {
			if wait {
				<-gate
			}
			mu.Lock()
			log = append(log, name)
			mu.Unlock()
			return nil
		}}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(q.Submit(job("pr-1", "a1", true)))
	waitFor(t, func() bool { return q.Len() == 0 }) // a1 running
	must(q.Submit(job("pr-1", "a2", false)))        // waits behind a1
	must(q.Submit(job("pr-1", "a3", false)))        // replaces a2
	must(q.Submit(job("pr-2", "b1", false)))        // another pull request runs meanwhile
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(log) == 1 })
	close(gate)
	q.Drain()
	if got := testutil.ToFloat64(q.superseded); strings.Join(log, ",") != "b1,a1,a3" || got != 1 {
		t.Errorf("ran %v (superseded %v), want b1,a1,a3 with a2 superseded", log, got)
	}
}

// TestQueueFailures: a job that panics and one that returns an error are retried with
// backoff up to the attempts, their failures are told to the hook (the last one as
// final), counted by outcome, and never hold up the other pull requests' jobs.
func TestQueueFailures(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg := prometheus.NewRegistry()
	var logs strings.Builder
	var logMu sync.Mutex
	log := slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil))
	q := NewQueue(ctx, QueueConfig{Workers: 2, MaxPending: 100, Attempts: 3, Backoff: 300 * time.Millisecond, Metrics: reg, Log: log})

	type failure struct {
		err   error
		final bool
	}
	var mu sync.Mutex
	told := map[string][]failure{}
	hook := func(key string) func(context.Context, error, bool) {
		return func(_ context.Context, err error, final bool) {
			mu.Lock()
			defer mu.Unlock()
			told[key] = append(told[key], failure{err, final})
		}
	}
	var panics, errs, oks atomic.Int32
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(q.Submit(&Job{Key: "pr-panic", Failed: hook("pr-panic"), Run: func(context.Context) error {
		panics.Add(1)
		var m map[string]int
		m["boom"]++ //nolint:staticcheck // a deliberate nil-map write: a runtime panic, as a bug in an evaluation would be
		return nil
	}}))
	must(q.Submit(&Job{Key: "pr-error", Failed: hook("pr-error"), Run: func(context.Context) error {
		if errs.Add(1) < 3 {
			return errors.New("read pull request: 502 bad gateway")
		}
		return nil // the third attempt succeeds
	}}))
	// While those fail and back off, twenty other pull requests are evaluated.
	for i := range 20 {
		must(q.Submit(&Job{Key: fmt.Sprintf("pr-%d", i), Run: func(context.Context) error { oks.Add(1); return nil }}))
	}
	waitFor(t, func() bool { return oks.Load() == 20 })
	if panics.Load() > 1 || errs.Load() > 1 {
		t.Errorf("the other pull requests waited for the retries (panics %d, errors %d before they finished)", panics.Load(), errs.Load())
	}
	waitFor(t, func() bool {
		return testutil.ToFloat64(q.outcomes.WithLabelValues(OutcomePanic)) == 3 && testutil.ToFloat64(q.outcomes.WithLabelValues(OutcomeOK)) == 21
	})
	q.Drain()

	if panics.Load() != 3 || errs.Load() != 3 {
		t.Errorf("attempts: panicking job %d, erring job %d; want 3 each", panics.Load(), errs.Load())
	}
	mu.Lock()
	p, e := told["pr-panic"], told["pr-error"]
	mu.Unlock()
	if len(p) != 3 || p[0].final || p[1].final || !p[2].final {
		t.Errorf("panicking job's failures told: %+v; want 3, the last final", p)
	}
	var pe *PanicError
	if len(p) > 0 && (!errors.As(p[0].err, &pe) || !strings.Contains(pe.Error(), "nil map")) {
		t.Errorf("panic told as %v, want a *PanicError naming the nil map", p[0].err)
	}
	if len(e) != 2 || e[0].final || e[1].final {
		t.Errorf("erring job's failures told: %+v; want 2, neither final (the third attempt succeeds)", e)
	}
	for outcome, want := range map[string]float64{OutcomeOK: 21, OutcomeError: 2, OutcomePanic: 3} {
		if got := testutil.ToFloat64(q.outcomes.WithLabelValues(outcome)); got != want {
			t.Errorf("contractbot_evaluations_total{outcome=%q} = %v, want %v", outcome, got, want)
		}
	}
	if got := testutil.ToFloat64(q.retried); got != 4 {
		t.Errorf("retries %v, want 4 (2 per failing job)", got)
	}
	logMu.Lock()
	out := logs.String()
	logMu.Unlock()
	if !strings.Contains(out, "job panicked") || !strings.Contains(out, "queue_test.go") {
		t.Errorf("the panic is not logged with its stack:\n%s", out)
	}
}

// TestQueueDrainDropsRetries: at shutdown a retry not yet due is dropped (a replica's
// reconcile loop repairs it) instead of holding Drain for its backoff.
func TestQueueDrainDropsRetries(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := NewQueue(ctx, QueueConfig{Workers: 1, Attempts: 5, Backoff: time.Hour})
	var runs atomic.Int32
	if err := q.Submit(&Job{Key: "pr-1", Run: func(context.Context) error { runs.Add(1); return errors.New("down") }}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return testutil.ToFloat64(q.retried) == 1 })
	done := make(chan struct{})
	go func() { q.Drain(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Drain waited for a retry an hour away")
	}
	if runs.Load() != 1 {
		t.Errorf("ran %d times, want 1", runs.Load())
	}
	if err := q.Submit(&Job{Key: "pr-2", Run: func(context.Context) error { return nil }}); err == nil {
		t.Error("a drained queue accepted a job")
	}
}

// TestQueueRetryYieldsToNewerJob: a retry due while a newer job of its key waits is
// dropped; the newer job runs once.
func TestQueueRetryYieldsToNewerJob(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := NewQueue(ctx, QueueConfig{Workers: 1, Attempts: 3, Backoff: 200 * time.Millisecond})
	var old, newer atomic.Int32
	gate := make(chan struct{})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(q.Submit(&Job{Key: "pr-1", Run: func(context.Context) error { old.Add(1); return errors.New("down") }}))
	waitFor(t, func() bool { return old.Load() == 1 })
	must(q.Submit(&Job{Key: "pr-block", Run: func(context.Context) error { <-gate; return nil }})) // holds the one worker
	must(q.Submit(&Job{Key: "pr-1", Run: func(context.Context) error { newer.Add(1); return nil }}))
	time.Sleep(400 * time.Millisecond) // the retry falls due while the newer job waits
	close(gate)
	q.Drain()
	if old.Load() != 1 || newer.Load() != 1 {
		t.Errorf("old job ran %d times, newer %d; want 1 and 1", old.Load(), newer.Load())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestQueueKeepsCommands: a command (a /contractbot override, recheck) waiting for its
// pull request is never replaced by a newer event: plain evaluations submitted after
// it add nothing (it evaluates when it runs), one waiting before it gives way to it,
// and two commands both run, in order.
func TestQueueKeepsCommands(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := NewQueue(ctx, QueueConfig{Workers: 1, MaxPending: 100})
	var mu sync.Mutex
	var ran []string
	gate := make(chan struct{})
	job := func(name string, command bool) *Job {
		return &Job{Key: "pr-1", Command: command, Run: func(context.Context) error {
			if name == "running" {
				<-gate
			}
			mu.Lock()
			ran = append(ran, name)
			mu.Unlock()
			return nil
		}}
	}
	if err := q.Submit(job("running", false)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return q.Len() == 0 }) // running, holding the key
	for _, j := range []*Job{job("push", false), job("override", true), job("review", false), job("recheck", true), job("push2", false)} {
		if err := q.Submit(j); err != nil {
			t.Fatal(err)
		}
	}
	if q.Len() != 2 {
		t.Fatalf("%d jobs wait, want the two commands", q.Len())
	}
	close(gate)
	q.Drain()
	if got := strings.Join(ran, ","); got != "running,override,recheck" {
		t.Errorf("ran %s, want running,override,recheck: no command dropped", got)
	}
}
