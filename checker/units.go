package checker

import (
	"sort"
	"strings"
)

// unitWords are words in a doc that name a unit; a change among them changes meaning.
var unitWords = map[string]string{
	"ms": "milliseconds", "millis": "milliseconds", "millisecond": "milliseconds", "milliseconds": "milliseconds",
	"us": "microseconds", "micros": "microseconds", "microsecond": "microseconds", "microseconds": "microseconds",
	"ns": "nanoseconds", "nanos": "nanoseconds", "nanosecond": "nanoseconds", "nanoseconds": "nanoseconds",
	"sec": "seconds", "secs": "seconds", "second": "seconds", "seconds": "seconds",
	"minute": "minutes", "minutes": "minutes", "hour": "hours", "hours": "hours", "day": "days", "days": "days",
	"cent": "cents", "cents": "cents", "dollar": "dollars", "dollars": "dollars", "usd": "usd", "eur": "eur",
	"euro": "eur", "euros": "eur", "yuan": "cny", "cny": "cny", "rmb": "cny", "fen": "fen",
	"byte": "bytes", "bytes": "bytes", "kb": "kilobytes", "kilobytes": "kilobytes", "mb": "megabytes", "megabytes": "megabytes",
	"percent": "percent", "%": "percent", "basis": "basis points", "bps": "basis points",
	"meter": "meters", "meters": "meters", "metres": "meters", "km": "kilometers", "kilometers": "kilometers", "mile": "miles", "miles": "miles",
	"celsius": "celsius", "fahrenheit": "fahrenheit", "utc": "utc",
}

// DocUnits returns the sorted set of units a doc string names ("ms", "cents",
// "%"): engines report a change among them as a change of meaning.
func DocUnits(doc string) []string {
	set := map[string]bool{}
	word := strings.Builder{}
	flush := func() {
		if u, ok := unitWords[word.String()]; ok {
			set[u] = true
		}
		word.Reset()
	}
	for _, r := range strings.ToLower(doc) {
		switch {
		case r == '%':
			flush()
			set["percent"] = true
		case r >= 'a' && r <= 'z':
			word.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	out := make([]string, 0, len(set))
	for u := range set {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}
