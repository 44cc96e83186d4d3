package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ErrQueueFull is returned by Submit when the queue holds its maximum of pending jobs.
var ErrQueueFull = errors.New("queue full")

// MaxCommandsPerKey bounds the commands that wait for one key; Submit answers one more
// with ErrQueueFull (the webhook answers 503, and GitHub delivers it again later).
const MaxCommandsPerKey = 16

// errQueueClosed is returned by Submit after Drain.
var errQueueClosed = errors.New("queue closed")

// Job is one piece of work for one key (a pull request). A newer job for the same key
// replaces an older one that has not started: only the latest state of a pull
// request matters. A command is never replaced (see Command).
type Job struct {
	Key string
	// Command marks a job that answers a person (a /contractbot command): no newer
	// job of its key replaces it. A plain job submitted while a command of its key
	// waits adds nothing (the command's run reads the pull request as it is then)
	// and is dropped; a plain job waiting when a command comes is replaced by it;
	// commands of one key wait in order, up to MaxCommandsPerKey.
	Command bool
	// Run does the work. An error or a panic is a failed attempt: it is logged,
	// counted, told to Failed and retried with backoff up to the queue's attempts.
	Run func(ctx context.Context) error
	// Failed, when set, is told of each failed attempt while the key is still
	// held, within 30 s; final says no attempt follows. The bot shows the failure on
	// the pull request. A panic in it is recovered and logged.
	Failed func(ctx context.Context, err error, final bool)
}

// PanicError is the error of an attempt that panicked.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// QueueConfig configures a Queue.
type QueueConfig struct {
	// Workers run jobs in parallel (default 4); at most MaxPending keys may wait
	// (default 1000).
	Workers, MaxPending int
	// Attempts bounds the runs of one job (default 3); a failed attempt is retried
	// after Backoff (default 10 s), doubled at each further attempt.
	Attempts int
	Backoff  time.Duration
	// Metrics, when set, receives the queue's metrics.
	Metrics prometheus.Registerer
	Log     *slog.Logger
}

// Outcomes of one attempt, the values of contractbot_evaluations_total's label.
const (
	OutcomeOK    = "ok"
	OutcomeError = "error"
	OutcomePanic = "panic"
)

// Queue runs jobs on a bounded pool of workers. Jobs of one key run in order, one at a
// time; a job submitted while another of its key waits replaces the waiting one,
// unless that one is a command (Job.Command), which is never dropped. A
// failed job is retried later without holding a worker, so it never blocks other keys.
type Queue struct {
	cfg      QueueConfig
	mu       sync.Mutex
	pending  map[string][]*entry // waiting, in order: commands, then at most one plain job
	order    []string            // keys with a pending job, oldest first
	running  map[string]bool
	retries  map[*time.Timer]bool // scheduled retries
	wake     chan struct{}
	closed   bool
	inFlight sync.WaitGroup // submitted jobs not yet finished, replaced or dropped

	outcomes   *prometheus.CounterVec
	superseded prometheus.Counter
	retried    prometheus.Counter
}

// entry is a job and the attempt it is at (1 for the first run).
type entry struct {
	job     *Job
	attempt int
}

// NewQueue starts the workers; they stop when ctx ends.
func NewQueue(ctx context.Context, cfg QueueConfig) *Queue {
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	if cfg.MaxPending <= 0 {
		cfg.MaxPending = 1000
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = 3
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 10 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	q := &Queue{cfg: cfg, pending: map[string][]*entry{}, running: map[string]bool{},
		retries: map[*time.Timer]bool{}, wake: make(chan struct{}, 1),
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "contractbot_evaluations_total",
			Help: "Attempts of queued jobs (evaluations, commands, publishes) by outcome: ok, error or panic.",
		}, []string{"outcome"}),
		superseded: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "contractbot_jobs_superseded_total",
			Help: "Queued evaluations replaced by a newer event for the same pull request.",
		}),
		retried: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "contractbot_jobs_retried_total",
			Help: "Failed attempts scheduled to run again after a backoff.",
		}),
	}
	for _, o := range []string{OutcomeOK, OutcomeError, OutcomePanic} {
		q.outcomes.WithLabelValues(o) // present at 0 from the start
	}
	if cfg.Metrics != nil {
		cfg.Metrics.MustRegister(q.outcomes, q.superseded, q.retried,
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "contractbot_queue_length", Help: "Pull requests waiting for evaluation."},
				func() float64 { return float64(q.Len()) }))
	}
	for range cfg.Workers {
		go q.work(ctx)
	}
	return q
}

// Submit queues a job. It returns ErrQueueFull when MaxPending keys already wait and
// the job's key is not one of them.
func (q *Queue) Submit(j *Job) error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return errQueueClosed
	}
	e := &entry{job: j, attempt: 1}
	if waiting := q.pending[j.Key]; len(waiting) > 0 {
		last := waiting[len(waiting)-1]
		switch {
		case !last.job.Command: // replaced: its place in line and in flight
			waiting[len(waiting)-1] = e
			q.superseded.Inc()
		case !j.Command: // a command waits and evaluates what this would
			q.superseded.Inc()
		case len(waiting) >= MaxCommandsPerKey:
			q.mu.Unlock()
			return ErrQueueFull
		default:
			q.pending[j.Key] = append(waiting, e)
			q.inFlight.Add(1)
		}
		q.mu.Unlock()
		return nil
	}
	if len(q.pending) >= q.cfg.MaxPending {
		q.mu.Unlock()
		return ErrQueueFull
	}
	q.pending[j.Key] = []*entry{e}
	q.order = append(q.order, j.Key)
	q.inFlight.Add(1)
	q.mu.Unlock()
	q.signal()
	return nil
}

// requeue puts a retry back in line, unless the queue closed or a newer job of its
// key waits (that one runs instead; a command's retry runs first, before what
// waits); it reports whether the retry was queued. A retry may exceed MaxPending: it
// was accepted before.
func (q *Queue) requeue(e *entry) bool {
	q.mu.Lock()
	waiting := q.pending[e.job.Key]
	if q.closed || (len(waiting) > 0 && !e.job.Command) {
		q.mu.Unlock()
		return false
	}
	q.pending[e.job.Key] = append([]*entry{e}, waiting...)
	if len(waiting) == 0 {
		q.order = append(q.order, e.job.Key)
	}
	q.mu.Unlock()
	q.signal()
	return true
}

func (q *Queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// next takes the oldest waiting job whose key is not running.
func (q *Queue) next() *entry {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, key := range q.order {
		if q.running[key] {
			continue
		}
		waiting := q.pending[key]
		e := waiting[0]
		if len(waiting) > 1 {
			q.pending[key] = waiting[1:] // the key keeps its place in line
		} else {
			delete(q.pending, key)
			q.order = append(q.order[:i:i], q.order[i+1:]...)
		}
		q.running[key] = true
		return e
	}
	return nil
}

func (q *Queue) work(ctx context.Context) {
	for {
		e := q.next()
		if e == nil {
			select {
			case <-ctx.Done():
				return
			case <-q.wake:
				continue
			}
		}
		if q.Len() > 0 {
			q.signal() // more waiting: wake another worker
		}
		err := q.attempt(ctx, e)
		final := true
		if err != nil {
			// Told while the key is still held, so the hook never races a newer job
			// of the same pull request.
			final = q.final(ctx, e)
			q.failed(ctx, e, err, final)
		}
		q.mu.Lock()
		delete(q.running, e.job.Key)
		more := len(q.order) > 0
		q.mu.Unlock()
		if err == nil || final || !q.retryLater(e) {
			q.inFlight.Done()
		}
		if more {
			q.signal()
		}
	}
}

// RunNow runs j at once in the caller's goroutine with the guards of a worker's
// attempt: a panic is recovered and logged with its stack, the outcome counted, a
// failure logged and told to j.Failed (as not final: the caller comes back, as the
// reconcile loop does). It neither waits for j's key nor retries.
func (q *Queue) RunNow(ctx context.Context, j *Job) error {
	e := &entry{job: j, attempt: 1}
	err := q.attempt(ctx, e)
	if err != nil {
		q.failed(ctx, e, err, false)
	}
	return err
}

// attempt runs a job once, turning a panic into a *PanicError, and counts the outcome.
func (q *Queue) attempt(ctx context.Context, e *entry) (err error) {
	defer func() {
		if v := recover(); v != nil {
			p := &PanicError{Value: v, Stack: debug.Stack()}
			q.outcomes.WithLabelValues(OutcomePanic).Inc()
			q.cfg.Log.Error("job panicked", "key", e.job.Key, "attempt", e.attempt, "panic", fmt.Sprint(v), "stack", string(p.Stack))
			err = p
		}
	}()
	if err = e.job.Run(ctx); err != nil {
		q.outcomes.WithLabelValues(OutcomeError).Inc()
		q.cfg.Log.Error("job failed", "key", e.job.Key, "attempt", e.attempt, "err", err)
		return err
	}
	q.outcomes.WithLabelValues(OutcomeOK).Inc()
	return nil
}

// final reports whether a failed attempt is the job's last.
func (q *Queue) final(ctx context.Context, e *entry) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return e.attempt >= q.cfg.Attempts || q.closed || ctx.Err() != nil
}

// retryLater schedules the next attempt of a failed job after its backoff, without
// holding a worker; it reports whether one was scheduled (the job then stays in
// flight until it runs).
func (q *Queue) retryLater(e *entry) bool {
	wait := q.cfg.Backoff << (e.attempt - 1)
	next := &entry{job: e.job, attempt: e.attempt + 1}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	// Whoever takes the timer out of q.retries owns the job's place in flight:
	// the timer when it fires, or Drain.
	var t *time.Timer
	t = time.AfterFunc(wait, func() {
		q.mu.Lock()
		scheduled := q.retries[t]
		delete(q.retries, t)
		q.mu.Unlock()
		if scheduled && !q.requeue(next) {
			q.inFlight.Done()
		}
	})
	q.retries[t] = true
	q.retried.Inc()
	return true
}

// failHookTimeout bounds the time a Failed hook holds a worker.
const failHookTimeout = 30 * time.Second

// failed tells a job's Failed hook, within failHookTimeout, keeping a panic there
// from reaching the worker.
func (q *Queue) failed(ctx context.Context, e *entry, err error, final bool) {
	if e.job.Failed == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, failHookTimeout)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			q.cfg.Log.Error("failure hook panicked", "key", e.job.Key, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	e.job.Failed(ctx, err, final)
}

// Len returns the number of waiting jobs.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, waiting := range q.pending {
		n += len(waiting)
	}
	return n
}

// Drain stops accepting jobs, drops the retries not yet due (a replica's reconcile
// loop repairs what they would have done) and waits until every job taken has run.
// The workers stop when the context given to NewQueue ends.
func (q *Queue) Drain() {
	q.mu.Lock()
	q.closed = true
	for t := range q.retries {
		t.Stop()
		q.inFlight.Done()
	}
	clear(q.retries)
	q.mu.Unlock()
	q.inFlight.Wait()
}
