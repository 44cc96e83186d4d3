// Package clock is the time as serve's long-running parts read it (the bot, its
// alerts, the pages and feeds): an interface, so that a zero value reads the
// computer's clock and a test moves its own.
package clock

import "time"

// Clock tells the time.
type Clock interface {
	Now() time.Time
}

// Func is a Clock read from a function: tests pass one that returns a variable
// they move.
type Func func() time.Time

// Now calls f.
func (f Func) Now() time.Time { return f() }

// Fixed is a Clock that always says the same time.
type Fixed time.Time

// Now is t.
func (t Fixed) Now() time.Time { return time.Time(t) }

// Now is c's time, or the computer's when c is nil.
func Now(c Clock) time.Time {
	if c == nil {
		return time.Now()
	}
	return c.Now()
}
