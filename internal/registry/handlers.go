package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

var (
	ctJSON   = []string{ContentType}
	modeBody = []byte(`{"mode":"READONLY"}`)
)

// maxRequestBody bounds POST bodies (a schema, its type and references).
const maxRequestBody = 16 << 20

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { write(w, []byte("{}")) })
	m.HandleFunc("GET /subjects", s.getSubjects)
	m.HandleFunc("GET /subjects/{subject}/versions", s.getVersions)
	m.HandleFunc("GET /subjects/{subject}/versions/{version}", s.getVersion)
	m.HandleFunc("GET /subjects/{subject}/versions/{version}/schema", s.getVersionSchema)
	m.HandleFunc("GET /subjects/{subject}/versions/{version}/referencedby", s.getReferencedBy)
	m.HandleFunc("GET /contexts", s.getContexts)
	m.HandleFunc("GET /schemas", s.getSchemas)
	m.HandleFunc("POST /subjects/{subject}", s.lookUp)
	m.HandleFunc("GET /schemas/ids/{id}", s.getByID)
	m.HandleFunc("GET /schemas/ids/{id}/schema", s.getByIDSchema)
	m.HandleFunc("GET /schemas/ids/{id}/versions", s.getByIDVersions)
	m.HandleFunc("GET /schemas/ids/{id}/subjects", s.getByIDSubjects)
	m.HandleFunc("GET /subjects/{subject}/metadata", s.getLatestWithMetadata)
	m.HandleFunc("GET /schemas/guids/{guid}", s.getByGUID)
	m.HandleFunc("GET /schemas/guids/{guid}/ids", s.getByGUID)
	m.HandleFunc("GET /schemas/types", func(w http.ResponseWriter, _ *http.Request) { write(w, mustJSON(servedTypes())) })
	m.HandleFunc("POST /compatibility/subjects/{subject}/versions", s.compatibility)
	m.HandleFunc("POST /compatibility/subjects/{subject}/versions/{version}", s.compatibility)
	m.HandleFunc("GET /config", func(w http.ResponseWriter, _ *http.Request) { write(w, s.snap.Load().configBody) })
	m.HandleFunc("GET /config/{subject}", s.getConfig)
	m.HandleFunc("GET /mode", func(w http.ResponseWriter, _ *http.Request) { write(w, modeBody) })
	m.HandleFunc("GET /mode/{subject}", func(w http.ResponseWriter, _ *http.Request) { write(w, modeBody) })
	// Everything else that changes state is refused in the registry's own words.
	for _, p := range []string{
		"POST /subjects/{subject}/versions", "DELETE /subjects/{subject}", "DELETE /subjects/{subject}/versions/{version}",
		"PUT /config", "PUT /config/{subject}", "DELETE /config", "DELETE /config/{subject}",
		"PUT /mode", "PUT /mode/{subject}", "DELETE /mode/{subject}",
	} {
		m.HandleFunc(p, s.refuse)
	}
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if allow := allowed(m, r); len(allow) > 0 {
			// Jersey answers a method a resource does not take with 405, and Confluent's
			// exception mapper gives it this body.
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeError(w, http.StatusMethodNotAllowed, http.StatusMethodNotAllowed, "HTTP 405 Method Not Allowed")
			return
		}
		writeError(w, http.StatusNotFound, http.StatusNotFound, fmt.Sprintf("%s %s is not part of the Schema Registry API served here.", r.Method, r.URL.Path))
	})
	s.mux = m
}

// allowed lists the methods the routes of m take on r's path, none when no route but
// the catch-all has it.
func allowed(m *http.ServeMux, r *http.Request) []string {
	var out []string
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = method
		if _, pattern := m.Handler(probe); pattern != "/" && pattern != "" {
			out = append(out, method)
		}
	}
	return out
}

func write(w http.ResponseWriter, body []byte) {
	w.Header()["Content-Type"] = ctJSON
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, status, code int, msg string) {
	w.Header()["Content-Type"] = ctJSON
	w.WriteHeader(status)
	_, _ = w.Write(mustJSON(Error{Code: code, Message: msg}))
}

func subjectNotFound(w http.ResponseWriter, subject string) {
	writeError(w, http.StatusNotFound, CodeSubjectNotFound, fmt.Sprintf("Subject '%s' not found.", subject))
}

// subject returns the subject named in the path, or answers 40401.
func (s *Server) subject(w http.ResponseWriter, r *http.Request) (*snapshot, *subjectEntry) {
	snap := s.snap.Load()
	name := r.PathValue("subject")
	se := snap.subjects[name]
	if se == nil || (se.deleted && r.URL.Query().Get("deleted") != "true") {
		subjectNotFound(w, name)
		return snap, nil
	}
	return snap, se
}

// version returns the version named in the path ("latest", -1 or a number), or
// answers 42202 (not a version number) or 40402 (no such version).
func (s *Server) version(w http.ResponseWriter, r *http.Request) *versionEntry {
	_, se := s.subject(w, r)
	if se == nil {
		return nil
	}
	vs := r.PathValue("version")
	n := len(se.versions)
	if vs != "latest" && vs != "-1" {
		v, err := strconv.Atoi(vs)
		if err != nil || v < 1 || v > 1<<31-1 {
			writeError(w, http.StatusUnprocessableEntity, CodeInvalidVersion, fmt.Sprintf("The specified version '%s' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"", vs))
			return nil
		}
		if v > n {
			writeError(w, http.StatusNotFound, CodeVersionNotFound, fmt.Sprintf("Version %d not found.", v))
			return nil
		}
		return se.versions[v-1]
	}
	if n == 0 {
		writeError(w, http.StatusNotFound, CodeVersionNotFound, "Version latest not found.")
		return nil
	}
	return se.versions[n-1]
}

func (s *Server) getSubjects(w http.ResponseWriter, r *http.Request) {
	snap := s.snap.Load()
	if r.URL.Query().Get("deleted") == "true" {
		write(w, snap.listAllBody)
		return
	}
	write(w, snap.listBody)
}

func (s *Server) getVersions(w http.ResponseWriter, r *http.Request) {
	if _, se := s.subject(w, r); se != nil {
		write(w, se.versionsBody)
	}
}

// getVersion answers a version; a numbered one never changes (immutable reads),
// "latest" does (writeLatest: revalidated by its ETag).
func (s *Server) getVersion(w http.ResponseWriter, r *http.Request) {
	ve := s.version(w, r)
	if ve == nil {
		return
	}
	if !serialized(r) {
		if numbered(r) {
			writeNumbered(w, r, ve)
		} else {
			writeLatest(w, r, ve)
		}
		return
	}
	body, tag := ve.body.bytes(), ve.bodyTag
	if ve.typ == Protobuf {
		var ok bool
		if body, ok = s.serializedBody(w, ve, body, ve.schemaAt); !ok {
			return
		}
		tag = etagOf(body)
	}
	if numbered(r) {
		writeImmutable(w, r, tag, body)
		return
	}
	write(w, body)
}

// answer writes a version's body, in the serialized form when r asks for it.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, ve *versionEntry) {
	body := ve.body.bytes()
	if serialized(r) {
		var ok bool
		if body, ok = s.serializedBody(w, ve, body, ve.schemaAt); !ok {
			return
		}
	}
	write(w, body)
}

func (s *Server) getVersionSchema(w http.ResponseWriter, r *http.Request) {
	ve := s.version(w, r)
	if ve == nil {
		return
	}
	text, tag, ok := s.schemaOnly(w, r, ve)
	if !ok {
		return
	}
	if numbered(r) {
		writeImmutable(w, r, tag, text)
		return
	}
	write(w, text)
}

// schemaOnly is the text the /schema endpoints answer for ve, with its ETag: the
// schema file's text, or with ?format=serialized a Protobuf schema's base64
// FileDescriptorProto.
func (s *Server) schemaOnly(w http.ResponseWriter, r *http.Request, ve *versionEntry) ([]byte, string, bool) {
	if !serialized(r) || ve.typ != Protobuf {
		text := ve.text()
		return text, etagOf(text), true // made per request, as the text is: not kept per version
	}
	d, err := s.descriptor(ve)
	if err != nil {
		writeError(w, http.StatusInternalServerError, CodeInternal, "The schema could not be serialized: "+err.Error())
		return nil, "", false
	}
	return []byte(d.serialized), etagOf([]byte(d.serialized)), true
}

func numbered(r *http.Request) bool {
	v := r.PathValue("version")
	return v != "latest" && v != "-1"
}

// id returns the schema id named in the path, or answers 40403.
func (s *Server) id(w http.ResponseWriter, r *http.Request) *idEntry {
	snap := s.snap.Load()
	raw := r.PathValue("id")
	id, err := strconv.Atoi(raw)
	if err != nil || id < 1 || id > len(snap.ids) || snap.ids[id-1] == nil {
		writeError(w, http.StatusNotFound, CodeSchemaNotFound, fmt.Sprintf("Schema %s not found", raw))
		return nil
	}
	return snap.ids[id-1]
}

func (s *Server) getByID(w http.ResponseWriter, r *http.Request) {
	e := s.id(w, r)
	if e == nil {
		return
	}
	if serialized(r) && e.first.typ == Protobuf {
		full := e.body()
		body, ok := s.serializedBody(w, e.first, full, bytes.LastIndex(full, schemaMember))
		if ok {
			writeImmutable(w, r, etagOf(body), body)
		}
		return
	}
	if e.tail != nil {
		writeImmutable(w, r, e.bodyTag, e.head, e.tail)
		return
	}
	first, bp := e.first.body.borrow()
	writeImmutable(w, r, e.bodyTag, e.head, first[e.first.schemaAt:])
	giveBack(first, bp)
}

func (s *Server) getByIDSchema(w http.ResponseWriter, r *http.Request) {
	if e := s.id(w, r); e != nil {
		if text, tag, ok := s.schemaOnly(w, r, e.first); ok {
			writeImmutable(w, r, tag, text)
		}
	}
}

func (s *Server) getByIDVersions(w http.ResponseWriter, r *http.Request) {
	if e := s.id(w, r); e != nil {
		write(w, e.versionsBody)
	}
}

func (s *Server) getByIDSubjects(w http.ResponseWriter, r *http.Request) {
	if e := s.id(w, r); e != nil {
		write(w, e.subjectsBody)
	}
}

func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) {
	snap := s.snap.Load()
	name := r.PathValue("subject")
	if se := snap.subjects[name]; se != nil && !se.deleted {
		write(w, se.configBody)
		return
	}
	if r.URL.Query().Get("defaultToGlobal") == "true" {
		write(w, snap.configBody)
		return
	}
	writeError(w, http.StatusNotFound, CodeSubjectLevelNotFound, fmt.Sprintf("Subject '%s' does not have subject-level compatibility configured", name))
}

// readRequest decodes a schema request body, answering 422 or 400 on failure.
func readRequest(w http.ResponseWriter, r *http.Request) (schemaRequest, bool) {
	var req schemaRequest
	data, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, http.StatusBadRequest, "The request body could not be read: "+err.Error())
		return req, false
	}
	if len(data) > maxRequestBody {
		writeError(w, http.StatusRequestEntityTooLarge, http.StatusRequestEntityTooLarge, fmt.Sprintf("The request body is over %d bytes.", maxRequestBody))
		return req, false
	}
	if err := json.Unmarshal(data, &req); err != nil {
		writeError(w, http.StatusBadRequest, http.StatusBadRequest, "The request body is not a schema request ({\"schema\": \"...\"}): "+err.Error())
		return req, false
	}
	if strings.TrimSpace(req.Schema) == "" {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidSchema, "Empty schema")
		return req, false
	}
	return req, true
}

// lookUp answers POST /subjects/{subject}: the version of the subject whose canonical
// form is the given schema's and, when the request has references, whose references
// are the request's (exact bytes win when several match, then the newest); 42201 when
// the schema does not parse, as Confluent answers.
func (s *Server) lookUp(w http.ResponseWriter, r *http.Request) {
	snap, se := s.subject(w, r)
	if se == nil {
		return
	}
	req, ok := readRequest(w, r)
	if !ok {
		return
	}
	typ, ok := requestType(w, req)
	if !ok {
		return
	}
	key, ok := canonical(typ, []byte(req.Schema))
	if !ok {
		if fdp, isDescriptor := fromSerialized(req.Schema); typ == Protobuf && isDescriptor {
			s.lookUpDescriptor(w, r, snap, se, req, fdp)
			return
		}
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidSchema, fmt.Sprintf("Invalid schema: the request's schema does not parse as %s.", typ))
		return
	}
	// Versions of one form with other data contracts share its text: the newest wins,
	// as Confluent's look-up searches from the latest version.
	var hit *versionEntry
	refs := snap.pinned(req.References)
	cands := withContract(se.withNorm(key), req)
	for _, c := range cands {
		if c.typ != typ || (len(refs) > 0 && !sameReferences(refs, c.refs)) {
			continue
		}
		if hit == nil || c.schema() == req.Schema || hit.schema() != req.Schema {
			hit = c
		}
	}
	if hit == nil {
		writeError(w, http.StatusNotFound, CodeSchemaNotFound, "Schema not found")
		return
	}
	s.answer(w, r, hit)
}

// withContract narrows the versions of one form to those whose metadata and rules are
// the request's, when it has either and some version has them: a deserializer looks
// its writer's version up with the data contract it read by id (Confluent's look-up
// compares them too), so versions that differ only in rules are told apart.
func withContract(vs []*versionEntry, req schemaRequest) []*versionEntry {
	if req.Metadata == nil && req.RuleSet == nil {
		return vs
	}
	var out []*versionEntry
	for _, ve := range vs {
		if meta, rules := ve.contract(); len(contractDifferences(req.Metadata, meta, req.RuleSet, rules)) == 0 {
			out = append(out, ve)
		}
	}
	if len(out) == 0 {
		return vs
	}
	return out
}

// pinned is a request's references with version -1 (Confluent's "latest") read as
// the referenced subject's newest version, sorted by name.
func (snap *snapshot) pinned(refs []Reference) []Reference {
	out := slices.Clone(refs)
	for i, r := range out {
		if se := snap.subjects[r.Subject]; r.Version == -1 && se != nil {
			out[i].Version = len(se.versions)
		}
	}
	slices.SortFunc(out, byName)
	return out
}

// sameReferences reports whether a version's references are want (sorted by name), in
// any order: a schema's references are part of what it is (Confluent keys a schema
// by its text and references).
func sameReferences(want, have []Reference) bool {
	return slices.Equal(want, slices.SortedFunc(slices.Values(have), byName))
}

func byName(a, b Reference) int { return strings.Compare(a.Name, b.Name) }

// requestType is the schema type of a request, AVRO when it names none; a type no
// engine serves is answered 422, 42201 "Invalid schema type X", as Confluent answers
// a type it has no provider for (loadSchema).
func requestType(w http.ResponseWriter, req schemaRequest) (SchemaType, bool) {
	typ := req.SchemaType
	if typ == "" {
		typ = Avro
	}
	if _, ok := EngineOf(typ); !ok {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidSchema, fmt.Sprintf("Invalid schema type %s; use %s.", typ, typeNames()))
		return "", false
	}
	return typ, true
}

// refuse answers every write: the embedded registry is read-only.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request) {
	msg := "This registry is read-only: it serves the contract repository, where schemas and compatibility levels change through pull requests."
	if name := r.PathValue("subject"); name != "" {
		if se := s.snap.Load().subjects[name]; se != nil && se.folder != "" {
			msg += fmt.Sprintf(" Open a pull request that changes %s/contract.yaml or its schema file; the new version is served here once it is merged.", se.folder)
		} else {
			msg += fmt.Sprintf(" Open a pull request that adds a folder under contracts/ with a contract.yaml naming subject %s.", name)
		}
	} else {
		msg += " Open a pull request against the contract repository."
	}
	writeError(w, http.StatusUnprocessableEntity, CodeNotPermitted, msg)
}
