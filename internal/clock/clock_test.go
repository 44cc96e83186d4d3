package clock

import (
	"testing"
	"time"
)

func TestNow(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	if got := Now(Fixed(at)); !got.Equal(at) {
		t.Errorf("Fixed: %v, want %v", got, at)
	}
	moved := at
	f := Func(func() time.Time { return moved })
	moved = at.Add(time.Hour)
	if got := Now(f); !got.Equal(at.Add(time.Hour)) {
		t.Errorf("Func: %v, want the moved time", got)
	}
	before := time.Now()
	if got := Now(nil); got.Before(before) {
		t.Errorf("nil: %v, before %v", got, before)
	}
}
