// Package gctune sizes the collector's soft memory limit to the work: a fixed limit
// below a big tree's live heap makes the collector run back to back (issue 31: 71
// cycles and about 45% of the CPU for lint at 50,000 subjects under 768 MiB).
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Headroom is how many times the live heap the soft limit allows at least: between two
// cycles the program can allocate as much as it keeps.
const Headroom = 2

// LimitFor is the soft limit for a live heap: floor, or Headroom times live when that
// is more.
func LimitFor(live, floor int64) int64 {
	if l := live * Headroom; l > floor {
		return l
	}
	return floor
}

// CLIFloor is the soft limit's floor for the command-line tools.
const CLIFloor = 768 << 20

// CLI tunes the collector of a command-line run: loading a large tree allocates many
// short-lived objects, and collecting less often (GOGC 400) cuts the collector's share
// of the time; the soft limit (SoftLimit with CLIFloor) keeps the heap bounded. GOGC and
// GOMEMLIMIT, when set, take precedence. `contractbot` and the parse-only floor it is
// measured against (cmd/parsefloor) both run under it.
func CLI() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	SoftLimit(CLIFloor)
}

var (
	once sync.Once
	// tuned is set once SoftLimit has set a limit; floor is the last floor it was
	// given (serve's 300 MiB replaces the CLI's 768 MiB set before it); expected is
	// the least limit Expect asked for.
	tuned       atomic.Bool
	gctuneFloor atomic.Int64
	expected    atomic.Int64
)

// SoftLimit sets the soft memory limit to floor and, after every collection, raises it
// to LimitFor the live heap it measured (it never lowers it below floor, nor below
// what Expect asked for). GOMEMLIMIT, when set, takes precedence and turns the tuning
// off.
func SoftLimit(floor int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(max(floor, expected.Load()))
	tuned.Store(true)
	gctuneFloor.Store(floor)
	once.Do(register)
}

// Expect raises the soft limit to limit for the rest of the run, for a caller that
// knows the size of its work before it starts: the limit LimitFor gives after each
// collection trails a live heap that grows through a load, and with a limit close
// above the live heap the collector runs every time the program has allocated the
// difference (issue 31: lint at 100,000 subjects ran 58 cycles under the trailing
// limit, 40 under one sized from the tree). Without SoftLimit (GOMEMLIMIT set, a test,
// a library) it does nothing.
func Expect(limit int64) {
	if !tuned.Load() {
		return
	}
	for {
		cur := expected.Load()
		if limit <= cur || expected.CompareAndSwap(cur, limit) {
			break
		}
	}
	if limit > debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(limit)
	}
}

// floorBox is the sentinel whose finalizer runs once per collection.
type floorBox struct {
	_ [16]byte // finalizers do not run on tiny (under 16 bytes) allocations
}

var sample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

// register arms the sentinel; after each collection it sets the limit from the live
// heap and the floor SoftLimit set last, and arms a new one.
func register() {
	runtime.SetFinalizer(&floorBox{}, func(*floorBox) {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			debug.SetMemoryLimit(max(LimitFor(int64(sample[0].Value.Uint64()), gctuneFloor.Load()), expected.Load()))
		}
		register()
	})
}
