package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/history"
	"github.com/contractbot/contractbot/internal/report"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/style.css
var styleCSS []byte

// Pages serves the HTML pages of the read side: the catalog (GET / and /subjects) and
// a page per subject (GET /subjects/{subject}), plus their stylesheet. The pages are
// rendered on the server and work without JavaScript; they carry no script at all.
type Pages struct {
	Tree *Tree
	// Clock tells the time (the computer's when nil).
	Clock clock.Clock
	Log   *slog.Logger
	// SignOffs tells the sign-off pages which pull requests wait for whom; nil when
	// the bot is not connected (the pages say so).
	SignOffs SignOffSource
	// Sampler gives the topic sampler's last result (serve --sample-brokers) for the
	// health page's "topics whose data departs from the contract"; nil without a
	// sampler.
	Sampler Sampler
	// SummaryCache, when set, is a file that keeps the catalog's summaries of the
	// subject folders by Git tree hash, so that the first catalog page after a start
	// reads only the folders that changed since (summaries.go).
	SummaryCache string
	// AuditCache, when set, keeps the health report's audit of the history between
	// starts, so that the first audit after a start checks only the versions added
	// since (history.Cache, as report --cache-dir does).
	AuditCache *history.Cache
	// Observed is the lineage serve observed (OpenLineage events) for the lineage
	// page; nil when it collects none.
	Observed ObservedLineage
	// RowCache, when set, is a file that keeps what the snapshot made without the tree
	// keeps of each subject folder, by Git tree hash, so that a start reads only the
	// folders that changed since (rowcache.go).
	RowCache string
	// FirstPage, when set, is a file that keeps the catalog's first page of the last
	// commit whose rows Load read, rendered by the build Build names: after a restart
	// on that commit GET / is answered from it until the rows are read again
	// (firstpage.go).
	FirstPage, Build string

	mu   sync.Mutex
	snap *snapshot
	// streaming makes one snapshot at a time without the tree (streamed).
	streaming sync.Mutex
	// folders keeps the subjects that pages loaded alone (subjectAt), by commit and
	// folder.
	folders *lru.Cache[folderKey, *contract.Subject]
	// light is the catalog's snapshot while the full tree loads.
	light light
	// saved is the first page read from FirstPage.
	saved firstPage
	// auditing runs one history audit of the health report at a time; audited is the
	// last one, which the next commit's extends (health.go).
	auditing sync.Mutex
	audited  *history.Audited
}

// The pages' templates: each page is the layout plus its own template.
var (
	catalogTmpl  = page("catalog.html")
	subjectTmpl  = page("subject.html")
	notFoundTmpl = page("notfound.html")
	calendarTmpl = page("calendar.html")
	teamsTmpl    = page("teams.html")
	teamTmpl     = page("team.html")
	signOffsTmpl = page("signoffs.html")
	lineageTmpl  = page("lineage.html")
	healthTmpl   = page("health.html")
)

func page(name string) *template.Template {
	return template.Must(template.New("layout.html").Funcs(template.FuncMap{
		"plural":      plural,
		"short":       func(s string) string { return s[:min(len(s), 12)] },
		"id":          ident, // names.go: what a pull request controls, shortened and inert
		"name":        title,
		"text":        text,
		"date":        func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
		"subjectHref": subjectHref,
	}).ParseFS(templateFS, "templates/layout.html", "templates/partials.html", "templates/"+name))
}

// Mount adds the page routes to mux.
func (p *Pages) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", p.catalog)
	mux.HandleFunc("GET /subjects", p.catalog)
	mux.HandleFunc("GET /subjects/{subject}", p.subject)
	mux.HandleFunc("GET /calendar", p.calendar)
	mux.HandleFunc("GET /teams", p.teams)
	mux.HandleFunc("GET /teams/{team}", p.team)
	mux.HandleFunc("GET /signoffs", p.signOffs)
	mux.HandleFunc("GET /lineage", p.lineageReport)
	mux.HandleFunc("GET /report", p.healthReport)
	mux.HandleFunc("GET "+SchemasPath+"{name}", serveSchema)
	mux.HandleFunc("GET /static/style.css", func(w http.ResponseWriter, r *http.Request) {
		secure(w)
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Write(styleCSS)
	})
}

// current returns the snapshot of the branch's current commit, computing it when the
// branch has moved: only then is the whole tree read.
func (p *Pages) current() (*snapshot, error) {
	head, err := p.Tree.resolve()
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	s := p.snap
	p.mu.Unlock()
	if s != nil && s.head == head && !(s.versionsPending && p.Tree.versionsReady(head)) {
		return s, nil
	}
	if p.Tree.Release > 0 && p.Tree.Repo != nil && !p.Tree.holdsWhole(head) {
		return p.streamed(head)
	}
	s, _, err = p.currentTree()
	return s, err
}

// streamed returns the snapshot of head without loading the whole tree when the
// pages do not keep it (Tree.Release): made by streamSnapshot, or the current one
// with the versions index's versions once it is ready. One at a time: a second
// caller waits for the first one's.
func (p *Pages) streamed(head plumbing.Hash) (*snapshot, error) {
	p.streaming.Lock()
	defer p.streaming.Unlock()
	p.mu.Lock()
	s := p.snap
	p.mu.Unlock()
	switch {
	case s != nil && s.head == head && !s.versionsPending:
		return s, nil
	case s != nil && s.head == head:
		if !p.Tree.versionsReady(head) {
			return s, nil
		}
		s = s.withVersions(p.Tree)
	default:
		var err error
		if s, err = p.streamSnapshot(head); err != nil {
			return nil, err
		}
	}
	p.readsFolders(s)
	p.mu.Lock()
	p.snap = s
	p.mu.Unlock()
	return s, nil
}

// streamSnapshot makes the snapshot of head in one pass over its subject folders that
// keeps of each subject only its catalog row and the subjects its consumers produce
// (contract.EachSubjectWithoutSchemas), and teams.yaml and the calendar loaded alone:
// the whole tree is never held. At 100,000 subjects it was about 600 MB live, loaded
// to make these rows, and serve's peak at start 2.8 GB (docs/performance.md).
func (p *Pages) streamSnapshot(head plumbing.Hash) (*snapshot, error) {
	src, err := contract.NewGitSource(p.Tree.Repo, head.String())
	if err != nil {
		return nil, err
	}
	var r subjectRows
	var dirs []string
	var trees map[string]string
	cached := p.readRows()
	if p.RowCache != "" {
		if dirs, trees, err = contract.SubjectDirTrees(src); err != nil {
			return nil, err
		}
	}
	known := func(dir string) bool {
		_, ok := cached[trees[dir]]
		return ok && trees[dir] != ""
	}
	if err := contract.EachSubjectWithoutSchemas(src, known, r.add); err != nil {
		return nil, fmt.Errorf("read the subjects at %s: %w", head.String()[:12], err)
	}
	read := len(r.sums)
	for _, dir := range dirs {
		if known(dir) {
			r.addCached(dir, cached[trees[dir]])
		}
	}
	if p.RowCache != "" && (read > 0 || len(cached) != len(r.sums)) {
		p.saveRows(&r, trees)
	}
	s := r.snapshot(head, p.Tree)
	index := make(map[string]string, len(s.rows))
	for _, x := range s.rows {
		index[x.Subject] = x.dir
	}
	skeleton, err := contract.LoadSubjectsIn(src, nil, contract.MapIndex(index))
	if err != nil {
		return nil, fmt.Errorf("load the teams and the calendar at %s: %w", head.String()[:12], err)
	}
	s.skeleton = &contract.Tree{Teams: skeleton.Teams, Entries: skeleton.Entries, Freezes: skeleton.Freezes}
	return s, nil
}

// readsFolders makes s's other subjects (the lineage graph's hops) come from their
// folders loaded alone (subjectAt), not from a tree.
func (p *Pages) readsFolders(s *snapshot) {
	s.subject = func(name string) *contract.Subject {
		sub, err := p.subjectAt(s, name)
		if err != nil {
			p.Log.Warn("pages: a subject of the lineage graph could not be read; the graph stops there", "subject", name, "err", err)
		}
		return sub
	}
}

// currentTree returns the snapshot of the branch's current commit and its whole tree,
// which Tree loads again when it has let it go (Tree.Release).
func (p *Pages) currentTree() (*snapshot, *contract.Tree, error) {
	tree, head, err := p.Tree.Current()
	if err != nil {
		return nil, nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.snap == nil || p.snap.head != head || p.snap.versionsPending && p.Tree.versionsReady(head) {
		s := newSnapshot(tree, head, p.Tree)
		p.readsFolders(s)
		p.snap = s
	}
	return p.snap, tree, nil
}

// secure sets the headers every response of the pages carries: no script at all, no
// framing, no content sniffing.
func secure(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
}

// layout is what every page's frame shows.
type layout struct {
	Title  string
	Head   string
	Branch string
	Nav    string // catalog | subject | calendar | teams | signoffs | health | lineage
	// Degraded says why Head is not the branch's head ("" when it is).
	Degraded string
	// Indexing: the versions index is not ready yet (the page shows no versions).
	Indexing bool
}

// frame is the layout of a page of snapshot s.
func (s *snapshot) frame(title, nav string) layout {
	l := layout{Title: title, Head: s.head.String(), Branch: s.branch, Nav: nav, Indexing: s.versionsPending}
	if s.degraded != nil {
		l.Degraded = s.degraded()
	}
	return l
}

func (p *Pages) render(w http.ResponseWriter, status int, t *template.Template, data any) {
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		p.Log.Error("pages: rendering failed", "page", t.Name(), "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	secure(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
	p.afterPage()
}

func (p *Pages) unavailable(w http.ResponseWriter, err error) {
	p.Log.Error("pages: loading the tree failed", "err", err)
	secure(w)
	http.Error(w, "the contract tree cannot be read right now", http.StatusServiceUnavailable)
}

type catalogPage struct {
	layout
	Filter                   Filter
	Result                   result
	Domains, Owners, Formats []string
	Prev, Next               string // links, "" at the ends
	Subjects                 int
}

func (p *Pages) catalog(w http.ResponseWriter, r *http.Request) {
	if p.savedFirstPage(w, r) {
		return
	}
	s, err := p.catalogSnapshot()
	if err != nil {
		p.unavailable(w, err)
		return
	}
	key := s.pageKey(r, "")
	if s.light {
		key = s.pageKey(r, "light") // the full tree's page may count consumers differently
	}
	if p.serveCached(w, r, s, key) {
		return
	}
	p.renderCached(w, s, key, catalogTmpl, p.catalogData(s, parseFilter(r.URL.Query())))
}

// catalogData is what the catalog page of s shows at f.
func (p *Pages) catalogData(s *snapshot, f Filter) catalogPage {
	res := s.filter(f)
	d := catalogPage{layout: s.frame("Subjects", "catalog"), Filter: f, Result: res,
		Domains: s.domains, Owners: s.owners, Formats: s.formats, Subjects: len(s.rows)}
	if res.Page > 1 {
		d.Prev = "/subjects?" + f.Values(res.Page-1).Encode()
	}
	if res.Page < res.Pages {
		d.Next = "/subjects?" + f.Values(res.Page+1).Encode()
	}
	return d
}

func (p *Pages) notFound(w http.ResponseWriter, s *snapshot, what string) {
	p.render(w, http.StatusNotFound, notFoundTmpl, struct {
		layout
		What string
	}{s.frame("Not found", ""), what})
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func itoa(n int) string { return strconv.Itoa(n) }

// now is the pages' clock's time.
func (p *Pages) now() time.Time { return clock.Now(p.Clock) }

// Sampler gives the topic sampler's last result.
type Sampler interface {
	// Sampled is the last round's result and a key that changes with each round
	// (the cached page follows it); nil and "" before the first.
	Sampled() (*report.Sampled, string)
}
