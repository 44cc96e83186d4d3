// Package publishtest holds test support for publishing: a small Confluent-compatible
// schema registry that accepts writes, for tests and benchmarks on loopback.
package publishtest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/registry"
)

// Registry stores schemas as the Confluent Schema Registry does: by their canonical
// form (checker.Canonical of the request's schemaType, what Confluent's
// canonicalString prints), so a text that differs from a registered one in layout
// only is that schema. It answers the writes publishing makes, PUT /config/{s},
// POST /subjects/{s} (look-up: the newest version of the form, with its metadata and
// ruleSet) and POST /subjects/{s}/versions (register, as Confluent 7.4 and later:
// a schema is its form with its metadata and ruleSet, a registration without them
// takes the latest version's; the same schema under the same subject is not a new
// version, the same form with other metadata or rules is, and each distinct schema
// anywhere has one id; a schema that does not parse is 42201), and the reads
// `registry diff` makes:
// GET /subjects, /subjects/{s}/versions, /subjects/{s}/versions/{v} (the stored,
// canonical text), /config and /config/{s} (with the compatibilityGroup a PUT set).
// Anything else answers 404. It is an
// http.Handler; serve it with httptest.
//
// Normalize, when set, is the registry's own normalization: registrations store
// Normalize of the canonical form (a text of its own, which a canonical form of the
// same schema no longer equals), and only a look-up with ?normalize=true normalizes
// the posted schema before comparing, as Confluent's does.
type Registry struct {
	Normalize func(typ registry.SchemaType, form string) string

	mu       sync.Mutex
	ids      map[string]int      // canonical form, metadata and ruleSet -> id
	subjects map[string][]stored // subject -> versions, version i+1 at i
	levels   map[string]string   // subject -> level
	groups   map[string]string   // subject -> compatibilityGroup
	posts    int
	normLook int                         // look-ups with ?normalize=true
	bodies   map[string][]map[string]any // subject -> registration bodies as sent
}

type stored struct {
	text     string // canonical form
	typ      registry.SchemaType
	metadata *registry.Metadata
	ruleSet  *registry.RuleSet
}

// key identifies a stored schema as Confluent's ids do: form, metadata and rules.
func (s stored) key() string { return SchemaKey(s.text, s.metadata, s.ruleSet) }

// SchemaKey tells schemas apart as a Confluent registry's ids do: by their text (a
// canonical form), metadata and rules.
func SchemaKey(text string, metadata *registry.Metadata, ruleSet *registry.RuleSet) string {
	m, _ := json.Marshal(metadata)
	r, _ := json.Marshal(ruleSet)
	return text + "\x00" + string(m) + "\x00" + string(r)
}

// response is the registry's description of version n of subject.
func (f *Registry) response(subject string, n int, v stored) registry.Schema {
	return registry.Schema{Subject: subject, Version: n, ID: f.ids[v.key()], SchemaType: typeForResponse(v.typ),
		Metadata: v.metadata, RuleSet: v.ruleSet, Schema: v.text}
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{ids: map[string]int{}, subjects: map[string][]stored{}, levels: map[string]string{}, groups: map[string]string{}, bodies: map[string][]map[string]any{}}
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

// NormalizedLookUps counts POST /subjects/{s}?normalize=true requests.
func (f *Registry) NormalizedLookUps() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.normLook
}

// Bodies returns the bodies of the registrations of subject, as decoded JSON.
func (f *Registry) Bodies(subject string) []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.bodies[subject])
}

// canonicalOf is the form a schema is stored and matched by.
func canonicalOf(typ registry.SchemaType, text string) (string, bool) {
	eng, _ := registry.EngineOf(typ)
	c, err := checker.Canonical(eng, []byte(text))
	return string(c), err == nil
}

func (f *Registry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", registry.ContentType)
	var raw map[string]any
	var body struct {
		Schema        string              `json:"schema"`
		SchemaType    registry.SchemaType `json:"schemaType"`
		Compatibility string              `json:"compatibility"`
		Group         string              `json:"compatibilityGroup"`
		Metadata      *registry.Metadata  `json:"metadata"`
		RuleSet       *registry.RuleSet   `json:"ruleSet"`
	}
	if r.Body != nil && (r.Method == http.MethodPost || r.Method == http.MethodPut) {
		dec := json.NewDecoder(r.Body)
		_ = dec.Decode(&raw)
		data, _ := json.Marshal(raw)
		_ = json.Unmarshal(data, &body)
	}
	if body.SchemaType == "" {
		body.SchemaType = registry.Avro
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	enc := json.NewEncoder(w)
	fail := func(status, code int, msg string) {
		w.WriteHeader(status)
		_ = enc.Encode(map[string]any{"error_code": code, "message": msg})
	}
	switch {
	case r.Method == http.MethodPut && len(parts) == 2 && parts[0] == "config":
		f.levels[parts[1]] = body.Compatibility
		if body.Group != "" {
			f.groups[parts[1]] = body.Group
		}
		_ = enc.Encode(raw) // Confluent echoes the request

	case r.Method == http.MethodGet && len(parts) == 1 && parts[0] == "config":
		_ = enc.Encode(map[string]string{"compatibilityLevel": "BACKWARD"})
	case r.Method == http.MethodGet && len(parts) == 2 && parts[0] == "config":
		if l := f.levels[parts[1]]; l != "" {
			out := map[string]string{"compatibilityLevel": l}
			if g := f.groups[parts[1]]; g != "" {
				out["compatibilityGroup"] = g
			}
			_ = enc.Encode(out)
			return
		}
		fail(http.StatusNotFound, registry.CodeSubjectLevelNotFound, "Subject '"+parts[1]+"' does not have subject-level compatibility configured")
	case r.Method == http.MethodGet && len(parts) == 1 && parts[0] == "subjects":
		names := []string{}
		for s := range f.subjects {
			names = append(names, s)
		}
		slices.Sort(names)
		_ = enc.Encode(names)
	case r.Method == http.MethodGet && len(parts) == 3 && parts[0] == "subjects" && parts[2] == "versions":
		vs := f.subjects[parts[1]]
		if len(vs) == 0 {
			fail(http.StatusNotFound, registry.CodeSubjectNotFound, "Subject '"+parts[1]+"' not found.")
			return
		}
		nums := make([]int, len(vs))
		for i := range vs {
			nums[i] = i + 1
		}
		_ = enc.Encode(nums)
	case r.Method == http.MethodGet && len(parts) == 4 && parts[0] == "subjects" && parts[2] == "versions":
		vs := f.subjects[parts[1]]
		n, err := strconv.Atoi(parts[3])
		if parts[3] == "latest" {
			n, err = len(vs), nil
		}
		if err != nil || n < 1 || n > len(vs) {
			fail(http.StatusNotFound, registry.CodeVersionNotFound, "Version "+parts[3]+" not found.")
			return
		}
		_ = enc.Encode(f.response(parts[1], n, vs[n-1]))
	case r.Method == http.MethodPost && len(parts) == 2 && parts[0] == "subjects":
		c, ok := canonicalOf(body.SchemaType, body.Schema)
		if !ok {
			fail(http.StatusUnprocessableEntity, registry.CodeInvalidSchema, "Invalid schema")
			return
		}
		if r.URL.Query().Get("normalize") == "true" {
			f.normLook++
			if f.Normalize != nil {
				c = f.Normalize(body.SchemaType, c)
			}
		}
		vs := f.subjects[parts[1]]
		for i := len(vs) - 1; i >= 0; i-- {
			if vs[i].text == c {
				_ = enc.Encode(f.response(parts[1], i+1, vs[i]))
				return
			}
		}
		fail(http.StatusNotFound, registry.CodeSchemaNotFound, "Schema not found")
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "subjects" && parts[2] == "versions":
		f.posts++
		f.bodies[parts[1]] = append(f.bodies[parts[1]], raw)
		c, ok := canonicalOf(body.SchemaType, body.Schema)
		if !ok {
			fail(http.StatusUnprocessableEntity, registry.CodeInvalidSchema, "Invalid schema")
			return
		}
		if f.Normalize != nil {
			c = f.Normalize(body.SchemaType, c)
		}
		in := stored{c, body.SchemaType, body.Metadata, body.RuleSet}
		if vs := f.subjects[parts[1]]; len(vs) > 0 {
			latest := vs[len(vs)-1]
			if in.metadata == nil {
				in.metadata = latest.metadata
			}
			if in.ruleSet == nil {
				in.ruleSet = latest.ruleSet
			}
		}
		id, ok := f.ids[in.key()]
		if !ok {
			id = len(f.ids) + 1
			f.ids[in.key()] = id
		}
		if !slices.ContainsFunc(f.subjects[parts[1]], func(s stored) bool { return s.key() == in.key() }) {
			f.subjects[parts[1]] = append(f.subjects[parts[1]], in)
		}
		_ = enc.Encode(map[string]int{"id": id})
	default:
		fail(http.StatusNotFound, 404, "not served by this fake")
	}
}

func typeForResponse(t registry.SchemaType) registry.SchemaType {
	if t == registry.Avro {
		return ""
	}
	return t
}
