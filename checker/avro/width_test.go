package avro

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

// wideRecord is a record of n int fields, one per line from line 2.
func wideRecord(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"record","name":"R","fields":[` + "\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"name":"f%d","type":"int"}`, i)
	}
	b.WriteString("]}\n")
	return b.String()
}

// A schema with more than MaxValues JSON values is refused before it is parsed, at the
// first value past the limit (issue 13: 210,000 fields in 7.7 MiB took 805 MB in a
// check); the canonical form refuses it too, and a schema under the limit parses.
func TestWidthBudget(t *testing.T) {
	// Line 1 holds 4 values ('{', two ',', '['); each field 3 ('{', ',' inside, ',' before
	// the next): value MaxValues+1 is the '{' of field 33,333, on line 33,334.
	text := wideRecord(40_000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Parse(checker.Input{Path: "wide.avsc", Data: []byte(text)})
	runtime.ReadMemStats(&after)
	var ie *checker.InputError
	if !errors.As(err, &ie) || ie.File != "wide.avsc" || ie.Line != 33_334 || ie.Column != 1 || !strings.Contains(ie.Message, fmt.Sprintf("more than %d JSON values", MaxValues)) || !strings.Contains(ie.Message, "Split it") {
		t.Fatalf("refusal: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("refusing allocated %d MB", got>>20)
	}
	if _, err := (Engine{}).Canonical([]byte(text)); err == nil || !strings.Contains(err.Error(), "MaxValues") {
		t.Errorf("Canonical: %v", err)
	}

	syms := make([]string, MaxValues+1)
	for i := range syms {
		syms[i] = fmt.Sprintf(`"S%d"`, i)
	}
	enum := `{"type":"enum","name":"E","symbols":[` + strings.Join(syms, ",") + `]}`
	if _, err := Parse(checker.Input{Path: "enum.avsc", Data: []byte(enum)}); !errors.As(err, &ie) || !strings.Contains(ie.Message, "JSON values") {
		t.Errorf("an enum of %d symbols: %v", len(syms), err)
	}

	if _, err := Parse(checker.Input{Path: "ok.avsc", Data: []byte(wideRecord(30_000))}); err != nil {
		t.Errorf("30,000 fields: %v", err)
	}
}
