// Package guard keeps a panic in one piece of background work from ending the process.
// The bot, the pages and the embedded registry share one process: a loop that panics
// on one bad input (a pull request, a commit, a registry answer) must lose that round
// only. Work that runs in the evaluation queue is guarded by internal/server; this
// package guards the loops beside it (reconcile, calendar reminders, drift watch,
// registry follower) and one-off goroutines.
package guard

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
)

// PanicError is a panic turned into an error, with the stack where it happened.
type PanicError struct {
	What  string
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("%s panicked: %v", e.What, e.Value) }

// Do runs fn. A panic in it is logged with its stack and returned as a *PanicError;
// what names the work in the log ("reconcile", "registry follow").
func Do(log *slog.Logger, what string, fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			p := &PanicError{What: what, Value: v, Stack: debug.Stack()}
			if log != nil {
				log.Error(what+" panicked; the process goes on", "panic", fmt.Sprint(v), "stack", string(p.Stack))
			}
			err = p
		}
	}()
	return fn()
}

// Every runs round at once and then every interval until ctx ends. A round that
// panics is logged and the next one runs on time; the loop never ends early.
func Every(ctx context.Context, interval time.Duration, log *slog.Logger, what string, round func(ctx context.Context)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		_ = Do(log, what, func() error { round(ctx); return nil })
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
