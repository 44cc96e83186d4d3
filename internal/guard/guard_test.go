package guard

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestDoTurnsAPanicIntoAnError(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	err := Do(log, "drift check", func() error { panic("boom") })
	var p *PanicError
	if !errors.As(err, &p) || p.Value != "boom" || len(p.Stack) == 0 {
		t.Fatalf("err = %v, want a *PanicError with the value and a stack", err)
	}
	if !strings.Contains(buf.String(), "drift check panicked") || !strings.Contains(buf.String(), "guard_test.go") {
		t.Fatalf("the log does not name the work and the stack:\n%s", buf.String())
	}
	want := errors.New("plain")
	if err := Do(log, "x", func() error { return want }); !errors.Is(err, want) {
		t.Fatalf("an error passes through unchanged: got %v", err)
	}
}

func TestEveryGoesOnAfterAPanic(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var rounds atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		Every(ctx, time.Millisecond, slog.New(slog.DiscardHandler), "loop", func(context.Context) {
			if rounds.Add(1) <= 2 {
				panic("bad round")
			}
		})
	}()
	deadline := time.After(10 * time.Second)
	for rounds.Load() < 5 {
		select {
		case <-deadline:
			t.Fatalf("only %d rounds ran; a panic stopped the loop", rounds.Load())
		case <-time.After(time.Millisecond):
		}
	}
	cancel()
	<-done
}
