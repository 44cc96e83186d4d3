package web

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unique"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/versions"
)

// PageSize is the number of subjects on one catalog page.
const PageSize = 50

// snapshot is what the pages need of one commit, computed once per commit so that a
// catalog request only filters a slice.
type snapshot struct {
	head   plumbing.Hash
	branch string // the branch shown, short ("origin/HEAD")
	// skeleton is the commit's tree without its subjects: teams, calendar entries
	// and freezes. The pages that read every subject ask Pages.currentTree for the
	// whole tree, which Tree may let go between requests.
	skeleton *contract.Tree
	rows     []row
	// Domains, Owners and Formats are the filter choices, sorted.
	domains, owners, formats []string
	// producers maps a subject to the consumers (of other subjects) that produce it,
	// sorted by file.
	producers map[string][]producerRef
	// subject returns another subject of the commit with its consumers, nil when
	// there is none (the lineage graph's downstream hops): from the tree the snapshot
	// was made of, until Pages replaces it with one that loads the subject's folder
	// (Pages.subjectAt), so that the snapshot does not keep the tree alive.
	subject func(name string) *contract.Subject
	// versions of each subject, oldest first; nil when the index could not be built.
	versions map[string][]versions.Version
	// degraded says why the commit shown is not the branch's (Tree.Follow).
	degraded func() string
	// cache holds the pages rendered at this commit.
	cache pageCache
	// light: the catalog's rows only, from summaries, while the full tree loads.
	light bool
	// health is the history part of the commit's health report (health.go).
	health health
	// pending are the open pull requests evaluated against this commit (jobstate.go).
	pending pendingEvals
	// versionsPending: the versions index was not ready (ErrVersionsPending) when
	// the rows were made; the snapshot is made again once it is.
	versionsPending bool
}

// row is one subject of the catalog.
type row struct {
	Subject, Domain, Format, Level, Owner, Tier, Topic string
	// dir is the subject's folder, which a subject's page loads (Pages.subjectAt).
	dir string
	// Latest is "v3", or "—" when the subject has no indexed version; Changed is the
	// date of that version ("" when none).
	Latest, Changed string
	Consumers       int
	// PII counts the fields contract.yaml marks as personal data.
	PII int
	// text is what a search matches: subject, topic, owner, description and the
	// consumers' names, lower case.
	text string
}

func newSnapshot(tree *contract.Tree, head plumbing.Hash, t *Tree) *snapshot {
	s := &snapshot{head: head, branch: "HEAD", producers: map[string][]producerRef{},
		skeleton: &contract.Tree{Teams: tree.Teams, Entries: tree.Entries, Freezes: tree.Freezes}, subject: tree.Subject}
	sums := make([]contract.Summary, len(tree.Subjects))
	for i, sub := range tree.Subjects {
		sums[i] = summaryOf(sub)
		for _, c := range sub.Consumers {
			if len(c.Produces) == 0 {
				continue
			}
			ref := producerRef{strings.Clone(c.Subject), strings.Clone(c.File)}
			for out := range c.Produces {
				out = strings.Clone(out) // the map's key outlives the tree
				s.producers[out] = append(s.producers[out], ref)
			}
		}
	}
	s.setRows(sums, t)
	// Producers are sorted for layout.
	for _, cs := range s.producers {
		slices.SortFunc(cs, func(a, b producerRef) int { return strings.Compare(a.file, b.file) })
	}
	return s
}

// producerRef names a consumer that produces other subjects: the lineage graph's
// upstream hops load its subject's folder (snapshot.subject) to draw it, so that the
// snapshot keeps neither the tree nor copies of 75,000 consumers' mappings (at
// 100,000 subjects the copies were 102 MB).
type producerRef struct{ subject, file string }

// intern returns s from a table of values that repeat (owners, formats, levels), so
// that 100,000 rows share a few copies and keep none of the tree's memory.
func intern(s string) string { return unique.Make(s).Value() }

// row returns the catalog's row of a subject, nil when the commit has none.
func (s *snapshot) row(subject string) *row {
	i, ok := slices.BinarySearchFunc(s.rows, subject, func(r row, name string) int { return strings.Compare(r.Subject, name) })
	if !ok {
		return nil
	}
	return &s.rows[i]
}

// summaryOf is what the catalog shows of a loaded subject.
func summaryOf(sub *contract.Subject) contract.Summary {
	sum := contract.Summary{Dir: sub.Dir, Domain: sub.Domain, Name: sub.Name, Subject: sub.Subject, Format: sub.Format,
		Compatibility: sub.Compatibility, Owner: sub.Owner, Tier: sub.Tier, Topic: sub.Topic, Description: sub.Description}
	for _, m := range sub.Fields {
		if m.PII {
			sum.PII++
		}
	}
	for _, c := range sub.Consumers {
		sum.Consumers = append(sum.Consumers, c.Name)
	}
	return sum
}

// setRows fills the catalog's rows (sorted by subject, with each subject's versions
// from t's index) and filter choices from summaries.
func (s *snapshot) setRows(sums []contract.Summary, t *Tree) {
	slices.SortStableFunc(sums, func(a, b contract.Summary) int { return strings.Compare(a.Subject, b.Subject) })
	if t != nil {
		s.branch = t.BranchName()
		s.degraded = t.degraded
		if err := t.WithVersions(s.head, func(ix *versions.Index) {
			s.versions = make(map[string][]versions.Version, len(sums))
			for _, sum := range sums {
				s.versions[strings.Clone(sum.Subject)] = ix.Versions(sum.Subject)
			}
		}); err != nil {
			s.versions, s.versionsPending = nil, errors.Is(err, ErrVersionsPending)
		}
	}
	domains, owners, formats := map[string]bool{}, map[string]bool{}, map[string]bool{}
	s.rows = make([]row, 0, len(sums))
	for _, sum := range sums {
		latest, changed := "—", ""
		if vs := s.versions[sum.Subject]; len(vs) > 0 {
			latest = "v" + strconv.Itoa(vs[len(vs)-1].Version)
			changed = vs[len(vs)-1].Time.UTC().Format("2006-01-02")
		}
		// Copies: the rows outlive the tree they were made from (Tree.Release).
		s.rows = append(s.rows, row{
			Subject: strings.Clone(sum.Subject), Domain: intern(sum.Domain), dir: strings.Clone(sum.Dir), Format: intern(sum.Format),
			Level: intern(sum.Compatibility), Owner: intern(sum.Owner), Tier: intern(sum.Tier), Topic: strings.Clone(sum.Topic),
			Latest: latest, Changed: changed, Consumers: len(sum.Consumers), PII: sum.PII, text: searchText(sum),
		})
		domains[sum.Domain], owners[sum.Owner], formats[sum.Format] = true, true, true
	}
	s.domains, s.owners, s.formats = sortedKeys(domains), sortedKeys(owners), sortedKeys(formats)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if k != "" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Filter is a catalog query, read from and written to GET parameters.
type Filter struct {
	Domain, Owner, Format, Query string
	Page                         int
}

func parseFilter(q url.Values) Filter {
	f := Filter{Domain: q.Get("domain"), Owner: q.Get("owner"), Format: q.Get("format"), Query: strings.TrimSpace(q.Get("q"))}
	f.Page, _ = strconv.Atoi(q.Get("page"))
	if f.Page < 1 {
		f.Page = 1
	}
	return f
}

// Values encodes the filter for a link, at page.
func (f Filter) Values(page int) url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"domain": f.Domain, "owner": f.Owner, "format": f.Format, "q": f.Query} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	return v
}

// Active reports whether any filter is set.
func (f Filter) Active() bool {
	return f.Domain != "" || f.Owner != "" || f.Format != "" || f.Query != ""
}

// result is one page of the filtered catalog.
type result struct {
	Rows        []row
	Total, Page int
	Pages       int
	First, Last int // 1-based positions of the page's rows in the result
}

// filter returns page f.Page of the rows that match f, in subject order. Every match
// is counted, but only the page's rows are kept.
func (s *snapshot) filter(f Filter) result {
	words := strings.Fields(strings.ToLower(f.Query))
	from := (f.Page - 1) * PageSize
	var r result
	r.Rows = make([]row, 0, PageSize)
	for i := range s.rows {
		x := &s.rows[i]
		if f.Domain != "" && x.Domain != f.Domain || f.Owner != "" && x.Owner != f.Owner || f.Format != "" && x.Format != f.Format {
			continue
		}
		match := true
		for _, w := range words {
			if !strings.Contains(x.text, w) {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		if r.Total >= from && r.Total < from+PageSize {
			r.Rows = append(r.Rows, *x)
		}
		r.Total++
	}
	r.Pages = max(1, (r.Total+PageSize-1)/PageSize)
	r.Page = min(f.Page, r.Pages)
	if r.Page != f.Page { // past the end: show the last page
		f.Page = r.Page
		return s.filter(f)
	}
	if len(r.Rows) > 0 {
		r.First, r.Last = from+1, from+len(r.Rows)
	}
	return r
}

func searchText(sum contract.Summary) string {
	var b strings.Builder
	for _, s := range []string{sum.Subject, sum.Topic, sum.Owner, sum.Description} {
		b.WriteString(strings.ToLower(s))
		b.WriteByte('\n')
	}
	for _, c := range sum.Consumers {
		b.WriteString(strings.ToLower(c))
		b.WriteByte('\n')
	}
	return b.String()
}
