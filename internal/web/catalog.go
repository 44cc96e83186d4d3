package web

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

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
	tree   *contract.Tree
	rows   []row
	// Domains, Owners and Formats are the filter choices, sorted.
	domains, owners, formats []string
	// producers maps a subject to the consumers (of other subjects) that produce it.
	producers map[string][]*contract.Consumer
	// versions of each subject, oldest first; nil when the index could not be built.
	versions map[string][]versions.Version
	// degraded says why the commit shown is not the branch's (Tree.Degraded).
	degraded func() string
	// cache holds the pages rendered at this commit.
	cache pageCache
}

// row is one subject of the catalog.
type row struct {
	Subject, Domain, Format, Level, Owner, Tier, Topic string
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
	s := &snapshot{head: head, branch: "HEAD", tree: tree, producers: map[string][]*contract.Consumer{}}
	if t != nil {
		s.branch = t.BranchName()
		s.degraded = t.Degraded
		if err := t.WithVersions(head, func(ix *versions.Index) {
			s.versions = make(map[string][]versions.Version, len(tree.Subjects))
			for _, sub := range tree.Subjects {
				s.versions[sub.Subject] = ix.Versions(sub.Subject)
			}
		}); err != nil {
			s.versions = nil
		}
	}
	domains, owners, formats := map[string]bool{}, map[string]bool{}, map[string]bool{}
	s.rows = make([]row, 0, len(tree.Subjects))
	for _, sub := range tree.Subjects {
		latest, changed := "—", ""
		if vs := s.versions[sub.Subject]; len(vs) > 0 {
			latest = "v" + strconv.Itoa(vs[len(vs)-1].Version)
			changed = vs[len(vs)-1].Time.UTC().Format("2006-01-02")
		}
		pii := 0
		for _, m := range sub.Fields {
			if m.PII {
				pii++
			}
		}
		s.rows = append(s.rows, row{
			Subject: sub.Subject, Domain: sub.Domain, Format: sub.Format, Level: sub.Compatibility,
			Owner: sub.Owner, Tier: sub.Tier, Topic: sub.Topic, Latest: latest, Changed: changed,
			Consumers: len(sub.Consumers), PII: pii, text: searchText(sub),
		})
		domains[sub.Domain], owners[sub.Owner], formats[sub.Format] = true, true, true
		for _, c := range sub.Consumers {
			for out := range c.Produces {
				s.producers[out] = append(s.producers[out], c)
			}
		}
	}
	// tree.Subjects is sorted by name: rows are too. Producers are sorted for layout.
	for _, cs := range s.producers {
		slices.SortFunc(cs, func(a, b *contract.Consumer) int { return strings.Compare(a.File, b.File) })
	}
	s.domains, s.owners, s.formats = sortedKeys(domains), sortedKeys(owners), sortedKeys(formats)
	return s
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

func searchText(sub *contract.Subject) string {
	var b strings.Builder
	for _, s := range []string{sub.Subject, sub.Topic, sub.Owner, sub.Description} {
		b.WriteString(strings.ToLower(s))
		b.WriteByte('\n')
	}
	for _, c := range sub.Consumers {
		b.WriteString(strings.ToLower(c.Name))
		b.WriteByte('\n')
	}
	return b.String()
}
