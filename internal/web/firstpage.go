package web

import (
	"bytes"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/atomicfile"
)

// firstPageMagic opens a saved first page, before its commit, build, ETag and body.
const firstPageMagic = "contractbot catalog page 1\n"

// firstPage is the catalog's first page (GET /) of a commit as the pages made it once
// the commit's rows and versions were ready, kept in Pages.FirstPage so that after a
// restart on the same commit the first page is served at once, before the rows are
// read again: a function of the commit and of the build that rendered it (at 100,000
// subjects the summaries the page was made from took 1.0 to 1.3 s of CPU,
// docs/performance.md, "The embedded registry at 100,000 subjects").
type firstPage struct {
	once sync.Once
	head plumbing.Hash
	etag string
	body []byte
}

// savedFirstPage answers GET / from the page saved in FirstPage while the snapshot of
// the commit served is not made yet; false when it does not (another commit or build,
// the registry degraded, a query, no file).
func (p *Pages) savedFirstPage(w http.ResponseWriter, r *http.Request) bool {
	if p.FirstPage == "" || r.URL.Path != "/" || r.URL.RawQuery != "" || p.Tree.degraded() != "" {
		return false
	}
	head, err := p.Tree.resolve()
	if err != nil || p.madeAt(head) {
		return false
	}
	p.saved.once.Do(func() { p.saved.head, p.saved.etag, p.saved.body = p.readFirstPage() })
	if p.saved.body == nil || p.saved.head != head {
		return false
	}
	if r.Header.Get("If-None-Match") == p.saved.etag {
		secure(w)
		w.Header().Set("ETag", p.saved.etag)
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	writePage(w, http.StatusOK, p.saved.etag, p.saved.body)
	return true
}

// readFirstPage reads FirstPage: nothing when there is none or it is of another build.
func (p *Pages) readFirstPage() (plumbing.Hash, string, []byte) {
	data, err := os.ReadFile(p.FirstPage)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			p.Log.Warn("pages: could not read the saved first page", "file", p.FirstPage, "err", err)
		}
		return plumbing.ZeroHash, "", nil
	}
	rest, ok := bytes.CutPrefix(data, []byte(firstPageMagic))
	var head, build, etag []byte
	for _, field := range []*[]byte{&head, &build, &etag} {
		if ok {
			*field, rest, ok = bytes.Cut(rest, []byte("\n"))
		}
	}
	if !ok || string(build) != p.Build || len(head) != 40 {
		return plumbing.ZeroHash, "", nil // another layout or build: made again
	}
	return plumbing.NewHash(string(head)), string(etag), rest
}

// saveFirstPage renders the first catalog page of s into FirstPage, when s has its
// versions and is the branch's (not degraded).
func (p *Pages) saveFirstPage(s *snapshot) {
	if p.FirstPage == "" || s.light || s.versionsPending || s.versions == nil || (s.degraded != nil && s.degraded() != "") {
		return
	}
	r, err := http.NewRequest(http.MethodGet, "/", nil)
	if err != nil {
		return
	}
	key := s.pageKey(r, "")
	var buf bytes.Buffer
	if err := catalogTmpl.Execute(&buf, p.catalogData(s, Filter{Page: 1})); err != nil {
		p.Log.Warn("pages: could not render the first page to save it", "err", err)
		return
	}
	var out bytes.Buffer
	out.WriteString(firstPageMagic + s.head.String() + "\n" + p.Build + "\n" + s.etag(key) + "\n")
	out.Write(buf.Bytes())
	if err := atomicfile.Write(p.FirstPage, out.Bytes()); err != nil {
		p.Log.Warn("pages: could not save the first page; the next start makes it from the summaries", "file", p.FirstPage, "err", err)
	}
}
