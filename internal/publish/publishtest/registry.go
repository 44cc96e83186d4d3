// Package publishtest holds test support for publishing: a small Confluent-compatible
// schema registry that accepts writes, for tests and benchmarks on loopback.
package publishtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/contractbot/contractbot/internal/registry"
)

// Registry answers the writes publishing makes: PUT /config/{s}, POST /subjects/{s}
// (look-up by exact text) and POST /subjects/{s}/versions (register; the same text
// under the same subject is not a new version, the same text anywhere has one id).
// Anything else answers 404. It is an http.Handler; serve it with httptest.
type Registry struct {
	mu       sync.Mutex
	ids      map[string]int
	subjects map[string][]string
	levels   map[string]string
	posts    int
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{ids: map[string]int{}, subjects: map[string][]string{}, levels: map[string]string{}}
}

// Registrations counts POST /subjects/{s}/versions requests.
func (f *Registry) Registrations() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.posts
}

// Versions returns the number of versions of subject.
func (f *Registry) Versions(subject string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subjects[subject])
}

// Level returns subject's level ("" when never set).
func (f *Registry) Level(subject string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.levels[subject]
}

func (f *Registry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", registry.ContentType)
	var body struct {
		Schema        string `json:"schema"`
		Compatibility string `json:"compatibility"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	enc := json.NewEncoder(w)
	switch {
	case r.Method == http.MethodPut && len(parts) == 2 && parts[0] == "config":
		f.levels[parts[1]] = body.Compatibility
		_ = enc.Encode(map[string]string{"compatibility": body.Compatibility})
	case r.Method == http.MethodPost && len(parts) == 2 && parts[0] == "subjects":
		for i, s := range f.subjects[parts[1]] {
			if s == body.Schema {
				_ = enc.Encode(registry.Schema{Subject: parts[1], Version: i + 1, ID: f.ids[s], Schema: s})
				return
			}
		}
		w.WriteHeader(http.StatusNotFound)
		_ = enc.Encode(map[string]any{"error_code": registry.CodeSchemaNotFound, "message": "Schema not found"})
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "subjects" && parts[2] == "versions":
		f.posts++
		id, ok := f.ids[body.Schema]
		if !ok {
			id = len(f.ids) + 1
			f.ids[body.Schema] = id
		}
		known := false
		for _, s := range f.subjects[parts[1]] {
			known = known || s == body.Schema
		}
		if !known {
			f.subjects[parts[1]] = append(f.subjects[parts[1]], body.Schema)
		}
		_ = enc.Encode(map[string]int{"id": id})
	default:
		w.WriteHeader(http.StatusNotFound)
		_ = enc.Encode(map[string]any{"error_code": 404, "message": "not served by this fake"})
	}
}
