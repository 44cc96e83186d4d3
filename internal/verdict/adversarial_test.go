package verdict

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/synth"
	"github.com/contractbot/contractbot/internal/testutil"
)

// maxAdversarialAlloc is what loading both trees, evaluating and rendering one drawn
// case may allocate in all. The cases are small texts (at most a few hundred KB), but
// their lists run to the budgets (10,000 changes, each reaching two consumers: the
// JSON report alone is up to 40 MB); a walk that lists paths instead of types takes
// gigabytes on the deep ones.
const maxAdversarialAlloc = 768 << 20

// TestAdversarialSchemasStayWithinBudget draws hostile schemas (types reusing each
// other level after level, recursive types, deep nesting, unions of records, wide
// records, huge enums, long names, chains of files) as a change to one subject of the
// example tree, and asserts the budgets of loading (lint), evaluating and rendering it:
// bytes allocated, field paths listed, changes and findings listed, annotations.
func TestAdversarialSchemasStayWithinBudget(t *testing.T) {
	n := uint64(24)
	if testing.Short() {
		n = 6
	}
	for seed := range n {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { checkAdversarial(t, seed) })
	}
}

// FuzzAdversarialSchemas explores more seeds:
//
//	go test ./internal/verdict -run '^$' -fuzz FuzzAdversarialSchemas -fuzztime 60s
func FuzzAdversarialSchemas(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { checkAdversarial(t, seed) })
}

func checkAdversarial(t *testing.T, seed uint64) {
	const dir = "contracts/adv/s"
	c := synth.Adversarial(seed, strings.TrimPrefix(dir, "contracts/"))
	t.Logf("seed %d: %s", seed, c.Shape)
	tree := func(schema map[string]string) map[string][]byte {
		files := testutil.ExampleFiles(t)
		contractYAML := fmt.Sprintf("subject: adv.s-value\nformat: %s\nschema: %s\ncompatibility: FULL_TRANSITIVE\nowner: payments\ntier: core\n", c.Format, c.Schema)
		if c.Message != "" {
			contractYAML += "message: " + c.Message + "\n"
		}
		files[dir+"/contract.yaml"] = []byte(contractYAML)
		files[dir+"/consumers/deep.yaml"] = []byte("name: deep\nowner: risk\nkind: service\nreads: [" + strings.Join(c.Reads, ", ") + "]\nproduces:\n  dw.payment-detail-value:\n    payment_id: [" + c.Reads[0] + "]\n")
		files[dir+"/consumers/all.yaml"] = []byte("name: all\nowner: data-warehouse\nkind: sink\nreads: [\"*\"]\n")
		for name, text := range schema {
			files[dir+"/"+name] = []byte(text)
		}
		return files
	}
	baseFiles, headFiles := tree(c.Base), tree(c.Head)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	base, err := contract.Load(contract.MemSource(baseFiles))
	must(t, err)
	head, err := contract.Load(contract.MemSource(headFiles))
	must(t, err)
	r := Assess(Input{Base: base, Head: head, Author: "olivia", OpenedAt: openedAt, Now: now})
	md, txt, gh, run := Markdown(r, goldenOptions), Text(r), GitHubActions(r), CheckRunOutput(r)
	js, err := JSON(r)
	must(t, err)
	runtime.ReadMemStats(&after)

	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d MB; markdown %d KB, text %d KB, json %d KB", alloc>>20, len(md)>>10, len(txt)>>10, len(js)>>10)
	if alloc > maxAdversarialAlloc {
		t.Errorf("%s: allocated %d MB, over %d MB", c.Shape, alloc>>20, maxAdversarialAlloc>>20)
	}
	for _, tr := range []*contract.Tree{base, head} {
		s := tr.Subject("adv.s-value")
		if s == nil || s.FieldPaths() == nil {
			// Every drawn schema is valid: one that does not parse tests nothing.
			t.Errorf("%s: the drawn schema did not load: %v", c.Shape, tr.Diagnostics.ForFile(dir+"/"+c.Schema))
			continue
		}
		if len(s.FieldPaths()) > checker.MaxFieldPaths {
			t.Errorf("%s: %d field paths listed", c.Shape, len(s.FieldPaths()))
		}
		for _, d := range tr.Diagnostics {
			if strings.HasPrefix(d.File, dir) && (d.Line < 1 || d.Column < 1) {
				t.Errorf("%s: a diagnostic without a place: %s", c.Shape, d)
			}
		}
	}
	for _, s := range r.Subjects {
		if len(s.Changes) > checker.MaxChanges+1 || len(s.Findings) > checker.MaxFindings+1 {
			t.Errorf("%s: %s lists %d changes and %d findings", c.Shape, s.Subject, len(s.Changes), len(s.Findings))
		}
	}
	if n := strings.Count(gh, "\n"); n > MaxActionsLines {
		t.Errorf("%s: %d workflow command lines", c.Shape, n)
	}
	total := 0
	for _, b := range run.Batches {
		if len(b) > AnnotationsPerRequest {
			t.Errorf("%s: a batch of %d annotations", c.Shape, len(b))
		}
		total += len(b)
	}
	if total > MaxCheckRunAnnotations || len(run.Summary) > 65535 {
		t.Errorf("%s: %d annotations, a summary of %d bytes", c.Shape, total, len(run.Summary))
	}
	if len(js) > 64<<20 {
		t.Errorf("%s: a JSON report of %d MB", c.Shape, len(js)>>20)
	}
	if len(md) > 65536 {
		t.Errorf("%s: a comment of %d bytes, over GitHub's 65,536", c.Shape, len(md))
	}
}
