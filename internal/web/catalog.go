package web

import (
	"cmp"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/block"
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
	var r subjectRows
	for _, sub := range tree.Subjects {
		r.add(sub)
	}
	s := r.snapshot(head, t)
	s.skeleton = &contract.Tree{Teams: tree.Teams, Entries: tree.Entries, Freezes: tree.Freezes}
	s.subject = tree.Subject
	return s
}

// subjectRows is what a snapshot keeps of the subjects of a commit, gathered one
// subject at a time, so that the subjects need not be held together
// (Pages.streamSnapshot).
type subjectRows struct {
	sums []contract.Summary
	// outs[i] are the subjects that sums[i]'s consumers produce.
	outs   [][]produce
	shared sharing
}

// produce is a subject that a consumer produces.
type produce struct {
	out string
	ref producerRef
}

// add keeps sub's summary and the subjects its consumers produce, as copies: the
// rows outlive the subject (Tree.Release, Pages.streamSnapshot).
func (r *subjectRows) add(sub *contract.Subject) {
	sum := summaryOf(sub)
	sum.Dir, sum.Subject, sum.Topic, sum.Description = strings.Clone(sum.Dir), strings.Clone(sum.Subject), strings.Clone(sum.Topic), strings.Clone(sum.Description)
	if r.shared == nil {
		r.shared = sharing{}
	}
	sum.Domain, sum.Format, sum.Compatibility, sum.Owner, sum.Tier = r.shared.of(sum.Domain), r.shared.of(sum.Format), r.shared.of(sum.Compatibility), r.shared.of(sum.Owner), r.shared.of(sum.Tier)
	for i, c := range sum.Consumers {
		sum.Consumers[i] = strings.Clone(c)
	}
	var outs []produce
	for _, c := range sub.Consumers {
		if len(c.Produces) == 0 {
			continue
		}
		ref := producerRef{sum.Subject, strings.Clone(c.File)}
		for out := range c.Produces {
			outs = append(outs, produce{strings.Clone(out), ref})
		}
	}
	r.keep(sum, outs)
}

// keep adds a subject's summary and the subjects its consumers produce.
func (r *subjectRows) keep(sum contract.Summary, outs []produce) {
	r.sums, r.outs = append(r.sums, sum), append(r.outs, outs)
}

// snapshot makes the snapshot of head from the subjects added: of two subjects of
// one name, the one of the first folder, as contract.Load keeps it.
func (r *subjectRows) snapshot(head plumbing.Hash, t *Tree) *snapshot {
	s := &snapshot{head: head, branch: "HEAD", producers: map[string][]producerRef{}}
	order := make([]int, len(r.sums))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(strings.Compare(r.sums[a].Subject, r.sums[b].Subject), strings.Compare(r.sums[a].Dir, r.sums[b].Dir))
	})
	sums := make([]contract.Summary, 0, len(order))
	// The producers' names are kept for as long as the snapshot, in one block: the
	// rows' strings are one string already (setRows), and serve keeps a snapshot for
	// hours while every collection visits its objects (package block).
	var blk block.Block
	outs := map[string]string{}
	for _, i := range order {
		if len(sums) > 0 && sums[len(sums)-1].Subject == r.sums[i].Subject {
			continue // a duplicate: Load reports it and keeps the first
		}
		sums = append(sums, r.sums[i])
		for _, o := range r.outs[i] {
			out, ok := outs[o.out]
			if !ok {
				out = blk.String(o.out)
				outs[out] = out
			}
			ref := producerRef{blk.String(o.ref.subject), blk.String(o.ref.file)}
			s.producers[out] = append(s.producers[out], ref)
		}
	}
	r.sums, r.outs = nil, nil
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

// sharing hands out one copy of each value that repeats (owners, formats, levels),
// so that 100,000 rows share a few copies and keep none of the tree's memory.
type sharing map[string]string

func (m sharing) of(s string) string {
	if v, ok := m[s]; ok {
		return v
	}
	v := strings.Clone(s)
	m[v] = v
	return v
}

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
	}
	domains, owners, formats := map[string]bool{}, map[string]bool{}, map[string]bool{}
	s.rows = make([]row, 0, len(sums))
	// The rows' own strings are copied into one string (the rows outlive the tree
	// they were made from, Tree.Release), the repeated ones shared: 100,000 rows are
	// then a few allocations rather than 500,000, which the first catalog page after
	// a start waits for.
	var all strings.Builder
	size := 0
	for _, sum := range sums {
		size += 2*len(sum.Subject) + len(sum.Dir) + 2*len(sum.Topic) + len(sum.Owner) + len(sum.Description) + 4
		for _, c := range sum.Consumers {
			size += len(c) + 1
		}
	}
	all.Grow(size)
	spans := make([][4]int, len(sums)) // ends of subject, dir, topic, text
	for i, sum := range sums {
		all.WriteString(sum.Subject)
		spans[i][0] = all.Len()
		all.WriteString(sum.Dir)
		spans[i][1] = all.Len()
		all.WriteString(sum.Topic)
		spans[i][2] = all.Len()
		writeSearchText(&all, sum)
		spans[i][3] = all.Len()
	}
	text := all.String()
	shared := sharing{}
	from := 0
	for i, sum := range sums {
		sp := spans[i]
		s.rows = append(s.rows, row{
			Subject: text[from:sp[0]], Domain: shared.of(sum.Domain), dir: text[sp[0]:sp[1]], Format: shared.of(sum.Format),
			Level: shared.of(sum.Compatibility), Owner: shared.of(sum.Owner), Tier: shared.of(sum.Tier), Topic: text[sp[1]:sp[2]],
			Consumers: len(sum.Consumers), PII: sum.PII, text: text[sp[2]:sp[3]],
		})
		from = sp[3]
		domains[sum.Domain], owners[sum.Owner], formats[sum.Format] = true, true, true
	}
	s.domains, s.owners, s.formats = sortedKeys(domains), sortedKeys(owners), sortedKeys(formats)
	s.setVersions(t)
}

// setVersions sets each row's latest version from t's versions index (none without
// t, or when the index is not ready: versionsPending then says whether it will be).
func (s *snapshot) setVersions(t *Tree) {
	s.versions, s.versionsPending = nil, false
	if t != nil {
		if err := t.WithVersions(s.head, func(ix *versions.Index) {
			s.versions = make(map[string][]versions.Version, len(s.rows))
			for _, x := range s.rows {
				s.versions[x.Subject] = ix.VersionsView(x.Subject)
			}
		}); err != nil {
			s.versions, s.versionsPending = nil, errors.Is(err, ErrVersionsPending)
		}
	}
	for i := range s.rows {
		x := &s.rows[i]
		x.Latest, x.Changed = "—", ""
		if vs := s.versions[x.Subject]; len(vs) > 0 {
			x.Latest = "v" + strconv.Itoa(vs[len(vs)-1].Version)
			x.Changed = vs[len(vs)-1].Time.UTC().Format("2006-01-02")
		}
	}
}

// withVersions is a copy of s, made before the versions index was ready, with the
// index's versions now that it is: the rest of s is the commit's and does not change.
func (s *snapshot) withVersions(t *Tree) *snapshot {
	n := &snapshot{head: s.head, branch: s.branch, skeleton: s.skeleton, rows: slices.Clone(s.rows),
		domains: s.domains, owners: s.owners, formats: s.formats, producers: s.producers, degraded: s.degraded, light: s.light}
	n.setVersions(t)
	return n
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

// writeSearchText writes what a search matches of a subject to b: subject, topic,
// owner, description and the consumers' names, lower case, a line each.
func writeSearchText(b *strings.Builder, sum contract.Summary) {
	for _, s := range []string{sum.Subject, sum.Topic, sum.Owner, sum.Description} {
		writeLower(b, s)
		b.WriteByte('\n')
	}
	for _, c := range sum.Consumers {
		writeLower(b, c)
		b.WriteByte('\n')
	}
}

// writeLower writes strings.ToLower(s) to b, without a copy of s when it is ASCII.
func writeLower(b *strings.Builder, s string) {
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] < utf8.RuneSelf && (s[i] < 'A' || s[i] > 'Z') {
			i++
		}
		b.WriteString(s[:i])
		if i == len(s) {
			return
		}
		if s[i] >= utf8.RuneSelf {
			b.WriteString(strings.ToLower(s[i:]))
			return
		}
		b.WriteByte(s[i] + 'a' - 'A')
		s = s[i+1:]
	}
}
