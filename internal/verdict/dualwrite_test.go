package verdict

import (
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/contract"
)

const (
	gmvDualWrite = "calendar/2026-12-07-gmv-dual-write.yaml"
	// gmvField is gmv (currency units with cents) added next to gmv_cents.
	gmvField = `    {"name": "gmv", "type": ["null", "double"], "default": null, "doc": "Sum of order totals in the currency's units."},
`
)

// startDualWrite adds gmv next to gmv_cents, deprecates gmv_cents with gmv as its
// replacement (removable after removeAfter) and plans the dual-version period with an
// entry of kind dual-write, all in one change.
func startDualWrite(t *testing.T, removeAfter string) (*Report, *contract.Tree) {
	t.Helper()
	r := newScenarioRepo(t)
	r.replace(gmvSchema, `"fields": [
`, `"fields": [
`+gmvField)
	r.replace(gmvContract, "fields:\n", "fields:\n  gmv:\n    doc: sum of order totals in currency units\n")
	r.replace(gmvContract, "    unit: cents\n", "    unit: cents\n    deprecated: {since: \"2026-12-01\", remove_after: \""+removeAfter+"\", replacement: gmv}\n")
	r.write(gmvDualWrite, `title: Write gmv next to gmv_cents while the readers move
kind: dual-write
subjects: [dws.gmv-1min-value]
owner: data-warehouse
window:
  start: "2026-12-07T10:00"
  end: "2027-01-11T10:00"
  timezone: Europe/Berlin
`)
	r.commit("gmv: dual write")
	in := r.input()
	return Assess(in), in.Head
}

// The dual-version period (issue 33): while the window runs, check warns every reader
// still on the old field, and lint warns it in its consumer file.
func TestDualWriteWarnsReaders(t *testing.T) {
	rep, head := startDualWrite(t, "2027-01-15")
	s := subjectOf(t, rep, "dws.gmv-1min-value")
	var warned []string
	for _, w := range s.Warnings {
		if strings.Contains(w, "dual-write window "+gmvDualWrite) {
			warned = append(warned, strings.Fields(w)[1])
		}
	}
	equal(t, "warned readers", strings.Join(warned, ","), "doris-gmv-1min,gmv-dashboard")
	equal(t, "lint errors", len(rep.Lint), 0)
	var linted []string
	for _, d := range head.Diagnostics {
		if d.Code == contract.CodeDualWriteReader {
			linted = append(linted, d.File)
		}
	}
	equal(t, "lint warnings", strings.Join(linted, ","), "contracts/dws/gmv-1min/consumers/doris-gmv-1min.yaml,contracts/dws/gmv-1min/consumers/gmv-dashboard.yaml")
	writeGoldens(t, "o-dual-write", rep)
}

// A dual-write window must not outlive the old field: a remove_after before its end
// is an error in contract.yaml; and a window over a subject that names no
// replacement is an error in the entry.
func TestDualWriteLint(t *testing.T) {
	rep, _ := startDualWrite(t, "2027-01-05")
	var codes []string
	for _, d := range rep.Lint {
		codes = append(codes, d.File+":"+d.Code)
	}
	equal(t, "lint", strings.Join(codes, ","), gmvContract+":"+contract.CodeInvalidValue)

	r := newScenarioRepo(t)
	r.write(gmvDualWrite, `title: Nothing replaced
kind: dual-write
subjects: [dws.gmv-1min-value]
owner: data-warehouse
window: {start: "2026-12-07T10:00", end: "2027-01-11T10:00"}
`)
	r.commit("entry")
	tree := r.load("HEAD")
	var got []string
	for _, d := range tree.Diagnostics {
		if d.Severity == contract.Error {
			got = append(got, d.File+":"+d.Code)
		}
	}
	equal(t, "entry errors", strings.Join(got, ","), gmvDualWrite+":"+contract.CodeInvalidValue)
}
