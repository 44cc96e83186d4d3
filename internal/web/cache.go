package web

import (
	"bytes"
	"encoding/hex"
	"hash/fnv"
	"html/template"
	"net/http"
	"sync"
)

// pageCacheBytes bounds the rendered pages a snapshot keeps.
const pageCacheBytes = 32 << 20

// pageCache keeps the pages of one snapshot that are a function of the commit and the
// request alone (the catalog at any filter, a subject page without the bot), rendered
// once and served from memory; the snapshot of the next commit starts an empty one.
type pageCache struct {
	mu    sync.Mutex
	pages map[string][]byte
	size  int
}

// pageKey names a cacheable page: what the request asks plus whatever else the page
// shows (the degraded notice), so that the key and the commit decide the bytes.
func (s *snapshot) pageKey(r *http.Request, extra string) string {
	k := r.URL.Path + "?" + r.URL.RawQuery + "\x00" + extra
	if s.versionsPending {
		k += "\x00versions pending"
	}
	if s.degraded != nil {
		k += "\x00" + s.degraded()
	}
	return k
}

// etag is the entity tag of a cacheable page: the commit and a hash of its key.
func (s *snapshot) etag(key string) string {
	h := fnv.New64a()
	h.Write([]byte(key))
	return `"` + s.head.String()[:16] + "-" + hex.EncodeToString(h.Sum(nil)) + `"`
}

// serveCached answers a cacheable page from memory, or 304 when the client holds it;
// false means the caller renders it with renderCached.
func (p *Pages) serveCached(w http.ResponseWriter, r *http.Request, s *snapshot, key string) bool {
	etag := s.etag(key)
	if r.Header.Get("If-None-Match") == etag {
		secure(w)
		w.Header().Set("ETag", etag)
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	s.cache.mu.Lock()
	body, ok := s.cache.pages[key]
	s.cache.mu.Unlock()
	if !ok {
		return false
	}
	writePage(w, http.StatusOK, etag, body)
	return true
}

// renderCached renders a cacheable page, keeps it (while the cache has room) and
// serves it with its ETag.
func (p *Pages) renderCached(w http.ResponseWriter, s *snapshot, key string, t *template.Template, data any) {
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		p.Log.Error("pages: rendering failed", "page", t.Name(), "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	body := buf.Bytes()
	s.cache.mu.Lock()
	if s.cache.pages == nil {
		s.cache.pages = map[string][]byte{}
	}
	for k, b := range s.cache.pages { // full: drop pages at random until it fits
		if s.cache.size+len(body) <= pageCacheBytes {
			break
		}
		delete(s.cache.pages, k)
		s.cache.size -= len(b)
	}
	if len(body) <= pageCacheBytes {
		s.cache.pages[key] = body
		s.cache.size += len(body)
	}
	s.cache.mu.Unlock()
	writePage(w, http.StatusOK, s.etag(key), body)
	p.afterPage()
}

func writePage(w http.ResponseWriter, status int, etag string, body []byte) {
	secure(w)
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-cache") // keep it, but ask again: the branch moves
	w.WriteHeader(status)
	w.Write(body)
}
