package registry

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// ImmutableCacheControl is sent with reads whose answer never changes: a schema by
// its id, a subject's numbered version. Ids and version numbers are never reused,
// so a cache may keep them for a year without asking again.
const ImmutableCacheControl = "public, max-age=31536000, immutable"

// etagOf is a strong entity tag of a body.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// writeImmutable answers an immutable read: the body (its parts, in order) with its
// strong ETag and ImmutableCacheControl, or 304 Not Modified when If-None-Match names
// the tag.
func writeImmutable(w http.ResponseWriter, r *http.Request, etag string, body ...[]byte) {
	h := w.Header()
	h["Content-Type"] = ctJSON
	h.Set("ETag", etag)
	h.Set("Cache-Control", ImmutableCacheControl)
	if matches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	n := 0
	for _, b := range body {
		n += len(b)
	}
	h.Set("Content-Length", strconv.Itoa(n))
	for _, b := range body {
		_, _ = w.Write(b)
	}
}

// matches reports whether an If-None-Match header names etag ("*" names any; the
// comparison is weak, as RFC 9110 says for If-None-Match).
func matches(header, etag string) bool {
	for header != "" {
		var t string
		t, header, _ = strings.Cut(header, ",") // not Split: no allocation per request
		if t = strings.TrimPrefix(strings.TrimSpace(t), "W/"); t == "*" || t == etag {
			return true
		}
	}
	return false
}

// getContexts answers GET /contexts: the embedded registry has the default context
// only, as a Confluent registry without contexts answers.
func (s *Server) getContexts(w http.ResponseWriter, _ *http.Request) {
	write(w, []byte(`["."]`))
}

// getSchemas answers GET /schemas: every version of every subject (or only the latest
// with latestOnly=true), ordered by subject and version, each as GET
// /subjects/{s}/versions/{v} describes it; subjectPrefix, deleted, offset and limit
// as Confluent takes them.
func (s *Server) getSchemas(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	snap := s.snap.Load()
	prefix := q.Get("subjectPrefix")
	deleted := q.Get("deleted") == "true"
	latestOnly := q.Get("latestOnly") == "true"
	offset, err1 := nonNegative(q.Get("offset"), 0)
	limit, err2 := nonNegative(q.Get("limit"), -1)
	if err1 != nil || err2 != nil {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidVersion, "offset and limit must be whole numbers of 0 or more.")
		return
	}
	names := make([]string, 0, len(snap.subjects))
	for name, se := range snap.subjects {
		if strings.HasPrefix(name, prefix) && (deleted || !se.deleted) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var buf bytes.Buffer
	buf.WriteByte('[')
	n := 0
	for _, name := range names {
		vs := snap.subjects[name].versions
		if latestOnly && len(vs) > 0 {
			vs = vs[len(vs)-1:]
		}
		for _, ve := range vs {
			if offset > 0 {
				offset--
				continue
			}
			if limit >= 0 && n >= limit {
				break
			}
			if n > 0 {
				buf.WriteByte(',')
			}
			body, bp := ve.body.borrow()
			buf.Write(body)
			giveBack(body, bp)
			n++
		}
	}
	buf.WriteByte(']')
	write(w, buf.Bytes())
}

func nonNegative(s string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("not a whole number of 0 or more: %q", s)
	}
	return n, nil
}

// getReferencedBy answers GET /subjects/{s}/versions/{v}/referencedby: the ids of the
// schemas whose references name this subject version, ascending.
func (s *Server) getReferencedBy(w http.ResponseWriter, r *http.Request) {
	ve := s.version(w, r)
	if ve == nil {
		return
	}
	snap := s.snap.Load()
	ids := []int{}
	for _, se := range snap.subjects {
		for _, other := range se.versions {
			for _, ref := range other.refs {
				if ref.Subject == ve.v.Subject && ref.Version == ve.v.Version && !slices.Contains(ids, other.v.ID) {
					ids = append(ids, other.v.ID)
				}
			}
		}
	}
	slices.Sort(ids)
	write(w, mustJSON(ids))
}

// getLatestWithMetadata answers GET /subjects/{subject}/metadata?key=k&value=v...: the
// newest version whose metadata properties hold every key with its value (keys and
// values paired in order, as Confluent pairs them), as GET /subjects/{s}/versions/{v}
// answers it; 40403 when none does. Serializers configured with
// use.latest.with.metadata ask it.
func (s *Server) getLatestWithMetadata(w http.ResponseWriter, r *http.Request) {
	_, se := s.subject(w, r)
	if se == nil {
		return
	}
	q := r.URL.Query()
	keys, values := q["key"], q["value"]
	want := map[string]string{}
	for i := range min(len(keys), len(values)) {
		want[keys[i]] = values[i]
	}
	for i := len(se.versions) - 1; i >= 0; i-- {
		ve := se.versions[i]
		var props map[string]string
		if meta, _ := ve.contract(); meta != nil {
			props = meta.Properties
		}
		if hasProperties(props, want) {
			s.answer(w, r, ve)
			return
		}
	}
	writeError(w, http.StatusNotFound, CodeSchemaNotFound, "Schema not found")
}

// hasProperties reports whether props holds every key of want with its value.
func hasProperties(props, want map[string]string) bool {
	for k, v := range want {
		if got, ok := props[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// getByGUID answers GET /schemas/guids/{guid} (and .../ids) with Confluent's "schema
// not found": the
// registry assigns no GUIDs. Confluent derives a schema's GUID from an MD5 of the text
// it stores (its own print of the schema), references, metadata and rules, which
// cannot be reproduced byte for byte here, and a wrong GUID would be worse than none.
func (s *Server) getByGUID(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, CodeSchemaNotFound, fmt.Sprintf("Schema %s not found: this registry assigns no GUIDs (it serves the contract repository); look the schema up by id (GET /schemas/ids/{id}) or by subject and version.", r.PathValue("guid")))
}
