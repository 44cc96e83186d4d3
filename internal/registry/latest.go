package registry

import (
	"net/http"
	"strconv"
	"strings"
)

// The reads clients make most (a producer or consumer resolving a subject's schema):
// GET /subjects/{s}/versions/latest, and a numbered version. They are answered from
// the snapshot without the registry's ServeMux, and serve answers them before its own
// (Mounted.Answer): their headers are values prepared when the snapshot was built,
// set as canonical map entries, and they allocate nothing (docs/performance.md, "The
// embedded registry at 100,000 subjects").

// Mounted is the registry under a path prefix (serve's "/registry").
type Mounted struct {
	s        *Server
	strip    http.Handler // http.StripPrefix(prefix, s)
	subjects string       // prefix + "/subjects/"
}

// Under returns the registry mounted under prefix: its ServeHTTP answers what
// http.StripPrefix(prefix, s) answers, and Answer its hot reads before any ServeMux.
func (s *Server) Under(prefix string) *Mounted {
	return &Mounted{s: s, strip: http.StripPrefix(prefix, s), subjects: prefix + "/subjects/"}
}

// ServeHTTP answers a request under the prefix (the ServeMux of the caller routed it
// here).
func (m *Mounted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !m.Answer(w, r) {
		m.strip.ServeHTTP(w, r)
	}
}

// Answer answers a hot read of the registry under the prefix, a GET or HEAD of a
// subject's latest or numbered version, as the registry's ServeMux would, and reports
// true; anything else it leaves alone (false). It reads the raw path only, so serve
// calls it before its own ServeMux: the paths it answers are clean (a subject name
// with no "/", not "." or ".."), so that ServeMux would route them here unchanged.
func (m *Mounted) Answer(w http.ResponseWriter, r *http.Request) bool {
	rest, ok := strings.CutPrefix(r.URL.Path, m.subjects)
	return ok && m.s.hot(w, r, rest)
}

// hot answers GET or HEAD /subjects/{s}/versions/{v} (rest is what follows
// "/subjects/") for "latest", -1 or a version number of a subject the snapshot
// serves, and reports true; anything else (another path or method, a query, an
// escaped path, a subject unknown or deleted, a version that is not there, the
// registry not ready) it leaves to the ServeMux and its error answers.
func (s *Server) hot(w http.ResponseWriter, r *http.Request, rest string) bool {
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || r.URL.RawQuery != "" || r.URL.RawPath != "" {
		return false
	}
	name, vs, ok := strings.Cut(rest, "/versions/")
	if !ok || name == "" || name == "." || name == ".." || strings.IndexByte(name, '/') >= 0 || vs == "" || strings.IndexByte(vs, '/') >= 0 {
		return false
	}
	snap := s.snap.Load()
	if snap == nil {
		return false
	}
	se := snap.subjects[name]
	if se == nil || se.deleted || len(se.versions) == 0 {
		return false
	}
	latest := vs == "latest" || vs == "-1"
	n := len(se.versions)
	if !latest {
		// As the ServeMux's handler reads it (strconv.Atoi: "+2" and "02" are 2);
		// a number out of range is its error to answer.
		v, err := strconv.Atoi(vs)
		if err != nil || v < 1 || v > n {
			return false
		}
		n = v
	}
	w.Header()[CommitHeader] = snap.commit
	if latest {
		writeLatest(w, r, se.versions[n-1])
	} else {
		writeNumbered(w, r, se.versions[n-1])
	}
	return true
}

// writeLatest answers a subject's latest version: its body with its length and ETag,
// or 304 when If-None-Match names the tag. The tag is the version body's, so it
// changes when a new version becomes the latest.
func writeLatest(w http.ResponseWriter, r *http.Request, ve *versionEntry) {
	h := w.Header()
	h["Content-Type"] = ctJSON
	h["Etag"] = ve.latestHeader[1:2:2]
	if inm := r.Header["If-None-Match"]; len(inm) > 0 && matches(inm[0], ve.bodyTag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h["Content-Length"] = ve.latestHeader[0:1:1]
	if r.Method == http.MethodHead {
		return // net/http sends no body for HEAD: none is inflated
	}
	body, bp := ve.body.borrow()
	_, _ = w.Write(body)
	giveBack(body, bp)
}

// immutable is the Cache-Control value of writeImmutable, shared by every answer:
// a handler that adds a value gets a new slice.
var immutable = []string{ImmutableCacheControl}

// writeNumbered is writeImmutable(w, r, ve.bodyTag, body) with the header values
// prepared when the snapshot was built.
func writeNumbered(w http.ResponseWriter, r *http.Request, ve *versionEntry) {
	h := w.Header()
	h["Cache-Control"] = immutable[:1:1]
	writeLatest(w, r, ve)
}
