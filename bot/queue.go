package bot

import (
	"context"
	"errors"
	"sync"
)

// ErrQueueFull is returned by Submit when the queue holds its maximum of pending jobs.
var ErrQueueFull = errors.New("queue full")

// Job is one piece of work for one key (a pull request). A newer job for the same key
// replaces an older one that has not started: only the latest state of a pull
// request matters.
type Job struct {
	Key string
	Run func(ctx context.Context)
}

// Queue runs jobs on a bounded pool of workers. Jobs of one key run in order, one at a
// time; a job submitted while another of its key waits replaces the waiting one.
type Queue struct {
	mu       sync.Mutex
	pending  map[string]*Job // waiting, at most one per key
	order    []string        // keys with a pending job, oldest first
	running  map[string]bool
	max      int
	wake     chan struct{}
	wg       sync.WaitGroup
	onDrop   func(key string)
	closed   bool
	inFlight sync.WaitGroup
}

// NewQueue starts workers goroutines; at most maxPending keys may wait. onSupersede,
// if not nil, is told when a waiting job is replaced by a newer one.
func NewQueue(ctx context.Context, workers, maxPending int, onSupersede func(key string)) *Queue {
	q := &Queue{pending: map[string]*Job{}, running: map[string]bool{}, max: maxPending,
		wake: make(chan struct{}, 1), onDrop: onSupersede}
	for i := 0; i < workers; i++ {
		q.wg.Add(1)
		go q.work(ctx)
	}
	return q
}

// Submit queues a job. It returns ErrQueueFull when maxPending keys already wait and
// the job's key is not one of them.
func (q *Queue) Submit(j *Job) error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return errors.New("queue closed")
	}
	if _, waiting := q.pending[j.Key]; waiting {
		q.pending[j.Key] = j
		q.mu.Unlock()
		if q.onDrop != nil {
			q.onDrop(j.Key)
		}
		return nil
	}
	if len(q.pending) >= q.max {
		q.mu.Unlock()
		return ErrQueueFull
	}
	q.pending[j.Key] = j
	q.order = append(q.order, j.Key)
	q.inFlight.Add(1)
	q.mu.Unlock()
	q.signal()
	return nil
}

func (q *Queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// next takes the oldest waiting job whose key is not running.
func (q *Queue) next() *Job {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, key := range q.order {
		if q.running[key] {
			continue
		}
		j := q.pending[key]
		delete(q.pending, key)
		q.order = append(q.order[:i:i], q.order[i+1:]...)
		q.running[key] = true
		return j
	}
	return nil
}

func (q *Queue) work(ctx context.Context) {
	defer q.wg.Done()
	for {
		j := q.next()
		if j != nil && q.Len() > 0 {
			q.signal() // more waiting: wake another worker
		}
		if j == nil {
			select {
			case <-ctx.Done():
				return
			case <-q.wake:
				continue
			}
		}
		j.Run(ctx)
		q.mu.Lock()
		delete(q.running, j.Key)
		more := len(q.order) > 0
		q.mu.Unlock()
		q.inFlight.Done()
		if more {
			q.signal()
		}
	}
}

// Len returns the number of waiting jobs.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending)
}

// Drain waits until every submitted job has run (or was replaced), then stops
// accepting jobs. The workers stop when the context given to NewQueue ends.
func (q *Queue) Drain() {
	q.inFlight.Wait()
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
}
