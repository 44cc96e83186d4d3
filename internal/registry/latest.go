package registry

import (
	"net/http"
	"strconv"
	"strings"
)

// The read clients make most (a producer or consumer resolving a subject's schema):
// GET /subjects/{s}/versions/latest. It is answered from the snapshot without the
// registry's ServeMux, and its headers are values prepared when the snapshot was
// built (docs/performance.md, "The embedded registry at 100,000 subjects").

// Under returns the registry mounted under prefix (serve's "/registry"): what
// http.StripPrefix(prefix, s) answers, without copying the request for the latest
// version of a subject.
func (s *Server) Under(prefix string) http.Handler {
	rest := http.StripPrefix(prefix, s)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := strings.CutPrefix(r.URL.Path, prefix); ok && s.latest(w, r, p) {
			return
		}
		rest.ServeHTTP(w, r)
	})
}

// latest answers GET /subjects/{s}/versions/latest (p is the path inside the
// registry) of a subject the snapshot serves and reports true; anything else (another
// path or method, a query, an escaped path, a subject unknown or deleted, the
// registry not ready) it leaves to the ServeMux and its error answers.
func (s *Server) latest(w http.ResponseWriter, r *http.Request, p string) bool {
	if r.Method != http.MethodGet || r.URL.RawQuery != "" || r.URL.RawPath != "" {
		return false
	}
	name, ok := strings.CutPrefix(p, "/subjects/")
	if !ok {
		return false
	}
	if name, ok = strings.CutSuffix(name, "/versions/latest"); !ok || name == "" || strings.Contains(name, "/") {
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
	ve := se.versions[len(se.versions)-1]
	h := w.Header()
	h[CommitHeader] = snap.commit
	writeLatest(w, r, ve)
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
	_, _ = w.Write(ve.body)
}

// latestHeaderOf is a version's Content-Length and ETag values, prepared once.
func latestHeaderOf(body []byte, tag string) []string {
	return []string{strconv.Itoa(len(body)), tag}
}
