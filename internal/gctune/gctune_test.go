package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestLimitFor(t *testing.T) {
	for _, c := range []struct{ live, floor, want int64 }{
		{100, 768, 768},
		{384, 768, 768},
		{800, 768, 1600},
	} {
		if got := LimitFor(c.live, c.floor); got != c.want {
			t.Errorf("LimitFor(%d, %d) = %d, want %d", c.live, c.floor, got, c.want)
		}
	}
}

// TestSoftLimitFollowsLiveHeap keeps a live heap above the floor and checks that the
// limit rises above it after a collection: a fixed limit would stay at the floor.
func TestSoftLimitFollowsLiveHeap(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const floor = 16 << 20
	SoftLimit(floor)
	live := make([][]byte, 32)
	for i := range live {
		live[i] = make([]byte, 1<<20) // 32 MiB live, twice the floor
	}
	for i := 0; i < 50 && debug.SetMemoryLimit(-1) < 48<<20; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs on its own goroutine
	}
	if got := debug.SetMemoryLimit(-1); got < 48<<20 {
		t.Errorf("soft limit %d with 32 MiB live; want at least 48 MiB (about twice the live heap)", got)
	}
	runtime.KeepAlive(live)
}

// TestExpectHoldsAcrossCollections: a limit sized from the work before it starts stays
// after collections whose live heap alone would give less, and is never lowered by
// a smaller Expect.
func TestExpectHoldsAcrossCollections(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer expected.Store(expected.Load())
	const floor = 16 << 20
	SoftLimit(floor)
	Expect(256 << 20)
	Expect(32 << 20)
	for i := 0; i < 5; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs on its own goroutine
	}
	if got := debug.SetMemoryLimit(-1); got != 256<<20 {
		t.Errorf("soft limit %d after collections with little live; want the 256 MiB expected", got)
	}
}

// TestExpectWithoutSoftLimit: a process that does not tune its collector (GOMEMLIMIT
// set, a test, a library user) keeps its limit: a small tree must not set a tiny one.
func TestExpectWithoutSoftLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer tuned.Store(tuned.Load())
	defer expected.Store(expected.Load())
	tuned.Store(false)
	before := debug.SetMemoryLimit(-1)
	Expect(1 << 20)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("Expect without SoftLimit set the limit to %d (was %d)", got, before)
	}
}

// TestSoftLimitTakesTheLastFloor: serve sets its 300 MiB floor after the CLI's 768 MiB;
// the limit set after each collection follows the last floor, not the first one.
func TestSoftLimitTakesTheLastFloor(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer expected.Store(expected.Load())
	expected.Store(0)
	SoftLimit(512 << 20)
	SoftLimit(64 << 20) // far above twice this test's live heap
	for i := 0; i < 5; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs on its own goroutine
	}
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Errorf("soft limit %d MiB after collections; want the last floor, 64 MiB", got>>20)
	}
}
