package web

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffLine is one line of a line diff: Op is "+" (added), "-" (removed) or " ".
type diffLine struct {
	Op, Text string
	Class    string
}

// lineDiff compares two texts line by line (go-diff's line mode: each line is one
// symbol, so the result never splits a line).
func lineDiff(a, b string) []diffLine {
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	var out []diffLine
	for _, d := range diffs {
		op, class := " ", "ctx"
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			op, class = "+", "add"
		case diffmatchpatch.DiffDelete:
			op, class = "-", "del"
		}
		text := strings.TrimSuffix(d.Text, "\n")
		for _, l := range strings.Split(text, "\n") {
			out = append(out, diffLine{Op: op, Text: l, Class: class})
		}
	}
	return out
}

// parseDiff reads "1..3" (or from and to) into two version numbers within 1..n.
func parseDiff(spec, from, to string, n int) (int, int, error) {
	if spec != "" {
		var ok bool
		from, to, ok = strings.Cut(spec, "..")
		if !ok {
			return 0, 0, fmt.Errorf("write the diff as two version numbers, like diff=1..2")
		}
	}
	a, errA := strconv.Atoi(from)
	b, errB := strconv.Atoi(to)
	if errA != nil || errB != nil || a < 1 || b < 1 || a > n || b > n {
		return 0, 0, fmt.Errorf("the subject has versions 1 to %d; choose two of them", n)
	}
	return a, b, nil
}
