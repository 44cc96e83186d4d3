package web

import (
	"net/http"
	"strconv"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/lineage"
	"github.com/contractbot/contractbot/internal/lineage/openlineage"
)

// ObservedLineage is what serve has observed jobs doing: the OpenLineage run events it
// received at POST /api/v1/lineage (olstore.Store implements it).
type ObservedLineage interface {
	// Observed returns the lineage of each job seen, the number of events, and a
	// generation that changes whenever an event arrives.
	Observed() (generation, events int, jobs []*openlineage.Observed)
}

type lineagePage struct {
	layout
	Stats lineage.Stats
	// FieldReads, MappedJobs and MappedFields are Stats' ratios in whole percent.
	FieldReads, MappedJobs, MappedFields int
	BlackBoxes                           []consumerLink
	// MoreBlackBoxes and MoreNotes count what the page leaves out (healthRows a list).
	MoreBlackBoxes, MoreNotes int
	// Collecting: serve receives events; Events: how many it holds.
	Collecting bool
	Events     int
	Ob         lineage.Observation
	// Seen and Undeclared are Ob's ratios in whole percent.
	Seen, Undeclared int
	Drift            []driftGroup
	Notes            []string
	// ComparedNothing: no event names a topic a contract declares (lineage verify
	// exits 3); Unmapped are the datasets the events name instead.
	ComparedNothing bool
	Unmapped        []string
	MoreUnmapped    int
}

// driftGroup is the drift of one kind, with the sentence that heads it.
type driftGroup struct {
	ID, Title, Hint string
	Rows            []driftRow
	// All is the number of rows of the kind; the page shows the first healthRows.
	All, More int
}

type driftRow struct {
	lineage.Drift
	SubjectHref, FileHref string
}

// driftKinds are the groups of the page, in order.
var driftKinds = []driftGroup{
	{ID: "h-nofile", Title: "Jobs reading a topic without a consumer file", Hint: "Nobody is asked before these subjects change under them: give the job's consumer file an openlineage key naming the job (each row's sentence in contractbot lineage verify has it), or add the file (contractbot lineage sync writes it from Flink SQL)."},
	{ID: "h-undeclared", Title: "Fields read but not declared", Hint: "The job reads them, but a change to them would not reach its team: add them to the file's reads."},
	{ID: "h-never", Title: "Declared fields never observed", Hint: "The file says the job reads them, the events never showed it: drop them, or check that the job's events carry column lineage."},
	{ID: "h-unmapped", Title: "Output fields made from inputs the file does not map", Hint: "Impact analysis follows produces: add the input to the output field's mapping."},
	{ID: "h-notinschema", Title: "Fields the subject's schema does not have", Hint: "The job reads or makes fields the contract's schema does not have: its view of the topic differs from the contract. Find out which schema the job uses; declaring these fields would not pass lint."},
}

var driftKindOrder = []lineage.DriftKind{lineage.NoConsumerFile, lineage.UndeclaredRead, lineage.NeverObserved, lineage.UnmappedProduce, lineage.NotInSchema}

// lineageReport shows the lineage coverage the consumer files declare (as lint --stats)
// and, when serve collects OpenLineage events, the drift between them and what jobs
// were seen doing (as lineage verify). Rendered once per commit and generation of the
// observed events.
func (p *Pages) lineageReport(w http.ResponseWriter, r *http.Request) {
	s, err := p.current()
	if err != nil {
		p.unavailable(w, err)
		return
	}
	gen, events, jobs := -1, 0, []*openlineage.Observed(nil)
	if p.Observed != nil {
		gen, events, jobs = p.Observed.Observed()
	}
	key := s.pageKey(r, "observed:"+strconv.Itoa(gen))
	if p.serveCached(w, r, s, key) {
		return
	}
	s, tree, err := p.currentTree() // the whole tree, loaded again if Tree let it go
	if err != nil {
		p.unavailable(w, err)
		return
	}
	key = s.pageKey(r, "observed:"+strconv.Itoa(gen))
	// serve loads the tree without schemas: the subjects lineage compares fields of
	// are loaded alone, once each, so the page shows what lint --stats and lineage
	// verify show of the same commit
	parsed := map[string]*contract.Subject{}
	withSchema := func(sub *contract.Subject) *contract.Subject {
		if parsed[sub.Subject] == nil {
			parsed[sub.Subject] = p.withSchema(s, sub)
		}
		return parsed[sub.Subject]
	}
	if events == 0 {
		jobs = nil
	}
	fig := lineage.Compute(tree, jobs, withSchema)
	d := lineagePage{layout: s.frame("Lineage", "lineage"), Stats: fig.Stats, Collecting: p.Observed != nil, Events: events}
	d.FieldReads = percent(d.Stats.FieldReads, d.Stats.Consumers)
	d.MappedJobs = percent(d.Stats.MappedJobs, d.Stats.Jobs)
	d.MappedFields = percent(d.Stats.MappedFields, d.Stats.ProducedFields)
	byFile := map[string]*contract.Consumer{}
	for _, sub := range tree.Subjects {
		for _, c := range sub.Consumers {
			byFile[c.File] = c
		}
	}
	for _, f := range firstRows(d.Stats.BlackBoxes, &d.MoreBlackBoxes) {
		if c := byFile[f]; c != nil {
			d.BlackBoxes = append(d.BlackBoxes, consumerLink{c.Name, c.Owner, consumerHref(c), teamHref(c.Owner)})
		}
	}
	if fig.Observed {
		d.ComparedNothing = fig.Compared == 0
		d.Unmapped = firstRows(fig.Unmapped, &d.MoreUnmapped)
		d.Ob = fig.Observation
		d.Seen = percent(d.Ob.DeclaredSeen, d.Ob.DeclaredReads)
		d.Undeclared = percent(d.Ob.Undeclared, d.Ob.ObservedReads)
		drift := fig.Drift
		d.Notes = firstRows(fig.Notes, &d.MoreNotes)
		for i, kind := range driftKindOrder {
			g := driftKinds[i]
			for _, dr := range drift {
				if dr.Kind != kind {
					continue
				}
				if g.All++; g.All > healthRows {
					g.More++
					continue
				}
				row := driftRow{Drift: dr, SubjectHref: subjectHref(dr.Subject)}
				if c := byFile[dr.File]; c != nil {
					row.FileHref = consumerHref(c)
				}
				g.Rows = append(g.Rows, row)
			}
			d.Drift = append(d.Drift, g)
		}
	}
	p.renderCached(w, s, key, lineageTmpl, d)
}

// percent is n of total in whole percent, rounded down as lint --stats prints it (0
// when total is 0).
func percent(n, total int) int {
	if total == 0 {
		return 0
	}
	return n * 100 / total
}
