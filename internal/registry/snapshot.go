package registry

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/klauspost/compress/s2"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/formats"
	"github.com/contractbot/contractbot/internal/block"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/versions"
)

// DefaultLevel is the registry-wide compatibility level the embedded registry reports
// (GET /config), Confluent's default. Every subject has its own level from its
// contract.yaml.
const DefaultLevel = "BACKWARD"

// snapshot is an immutable view of the versions index at one commit, with every
// response body precomputed. Readers load it through an atomic pointer; a refresh
// builds a new one and swaps it in.
type snapshot struct {
	head        string
	commit      []string // the CommitHeader value: head
	subjects    map[string]*subjectEntry
	listBody    []byte // GET /subjects (subjects in the tree at head)
	listAllBody []byte // GET /subjects?deleted=true
	ids         []*idEntry
	configBody  []byte
}

type subjectEntry struct {
	name         string
	folder       string
	deleted      bool
	level        string
	versions     []*versionEntry // versions[i].v.Version == i+1
	versionsBody []byte
	configBody   []byte
	current      int // the index's Current (for reuse)
}

type versionEntry struct {
	v          versionRef
	typ        SchemaType
	importPath string // the schema file's path inside contracts/ (Protobuf imports)
	refs       []Reference
	body       packed          // GET /subjects/{s}/versions/{v}, compressed (packed.go)
	schemaAt   int             // where body's last member, "schema":"...", starts
	bodyTag    string          // etagOf(body)
	norm       string          // canonical(typ, text): the look-up key
	pb         *descriptorForm // a Protobuf version's serialized form, made on first use
	group      string          // the compatibility group key its contract.yaml declares (GET /config/{s})
	// latestHeader is Content-Length and ETag of body: the header values of the
	// answer when it is the subject's latest version (writeLatest).
	latestHeader [2]string
}

// versionRef is what the registry reads of a version's versions.Version: a copy of
// the whole struct (224 bytes) in every entry was about 36 MB at 100,000 subjects.
// The strings are the index's own.
type versionRef struct {
	Subject, Commit, Blob string
	Version, ID           int
}

func refOf(v versions.Version) versionRef {
	return versionRef{Subject: v.Subject, Commit: v.Commit, Blob: v.Blob, Version: v.Version, ID: v.ID}
}

type idEntry struct {
	// GET /schemas/ids/{id} is head followed by tail or, when tail is nil, by the
	// "schema" member that ends the body of the id's first version (the same bytes):
	// the two bodies share them.
	head, tail   []byte
	bodyTag      string // etagOf(head + tail)
	versionsBody []byte
	subjectsBody []byte
	uses         int           // len of versionsBody's list (for reuse)
	first        *versionEntry // the version whose text and references body holds
}

// body is the whole GET /schemas/ids/{id} body, in a new slice.
func (e *idEntry) body() []byte {
	if e.tail != nil {
		return append(bytes.Clone(e.head), e.tail...)
	}
	return append(bytes.Clone(e.head), e.first.body.bytes()[e.first.schemaAt:]...)
}

// contract is the version's data contract (metadata and ruleSet, nil when it has
// none), read back from its body: a snapshot keeps it once, in the body the reads
// answer with, not also as structures (at 100,000 subjects they were 92 MB). The
// members before "schema" are decoded, not the schema text.
func (ve *versionEntry) contract() (*Metadata, *RuleSet) {
	return contractOf(ve.body.bytes(), ve.schemaAt)
}

// contractOf is the data contract in a version's body whose "schema" member starts at
// at (body is changed: pass one that is not kept).
func contractOf(body []byte, at int) (*Metadata, *RuleSet) {
	var c struct {
		Metadata *Metadata `json:"metadata"`
		RuleSet  *RuleSet  `json:"ruleSet"`
	}
	if at < 1 {
		return nil, nil
	}
	head := bytes.TrimSuffix(body[:at], []byte(","))
	if err := json.Unmarshal(append(head, '}'), &c); err != nil {
		return nil, nil // build made the body: it decodes
	}
	return c.Metadata, c.RuleSet
}

// withNorm returns the subject's versions whose look-up key is norm, ascending. A
// scan, not a map per subject: a subject has a few versions, and at 100,000 subjects
// the maps were 31 MB of the snapshot.
func (se *subjectEntry) withNorm(norm string) []*versionEntry {
	var out []*versionEntry
	for _, ve := range se.versions {
		if ve.norm == norm {
			out = append(out, ve)
		}
	}
	return out
}

// text is the version's schema text, read back from its body: a snapshot keeps each
// text once, JSON-escaped in the body that the hot reads answer with, not twice.
func (ve *versionEntry) text() []byte { return []byte(ve.schema()) }

// schema is text as a string ("" only if the body lost it, which build rules out).
func (ve *versionEntry) schema() string {
	s, _ := schemaOf(ve.body.bytes(), ve.schemaAt)
	return s
}

// schemaOf decodes the "schema" member that starts at at and ends body.
func schemaOf(body []byte, at int) (string, error) {
	var s string
	if at < 0 {
		return "", errors.New("no schema member")
	}
	err := json.Unmarshal(body[at+len(schemaMember):len(body)-1], &s)
	return s, err
}

// builder carries what survives from one snapshot to the next: version entries never
// change once built (a version's text, id and references are fixed by history).
type builder struct {
	// contractAt, when set, reads the contract.yaml of a version's folder at the
	// commit where it first appeared: its data contract becomes the version's
	// metadata (nil: no metadata).
	contractAt func(versions.Version) ([]byte, error)
	entries    map[versions.SubjectVersion]*versionEntry
	prev       *snapshot // the last snapshot built: unchanged subjects are reused
	// contractsFile, when set, keeps the data contracts between starts
	// (datacontracts.go); contracts is its content during the first build.
	contractsFile string
	log           *slog.Logger
	contracts     *dataContracts
	// dict is the dictionary version bodies are packed with, made at the first build
	// with any version (nil until then, and when that build's bodies were too few).
	dict *s2.Dict
	// dictMade is set once the dictionary was made (or found impossible).
	dictMade bool
	// scratch is the encoder's buffer, reused from body to body (pack).
	scratch []byte
	// keep holds the version entries' bytes and strings (packed bodies, ETags,
	// lengths), as entries never change; snapBytes holds the snapshots' own bodies
	// (a subject's versions and config, an id's), which a later build replaces for
	// what changed; the bodies it replaced stay in the block until the next full
	// build, made once snapBytes has taken as much again as that build did (so the
	// block is at most twice what the snapshot uses). Blocks, not an object per value:
	// serve keeps a snapshot for hours and every collection visits its objects (package
	// block). entryChunk and subjectChunk hand out entries the same way.
	keep, snapBytes *block.Block
	fullBytes       int64 // snapBytes.Len() after the last full build
	entryChunk      []versionEntry
	subjectChunk    []subjectEntry
	idChunk         []idEntry
}

// chunkOf is how many entries one allocation holds.
const chunkOf = 256

// newVersion, newSubject and newID return zero entries from b's chunks.
func (b *builder) newVersion() *versionEntry { return take(&b.entryChunk) }
func (b *builder) newSubject() *subjectEntry { return take(&b.subjectChunk) }
func (b *builder) newID() *idEntry           { return take(&b.idChunk) }

// take returns the first entry of *chunk and drops it from there, after making a
// chunk of chunkOf when it is empty.
func take[T any](chunk *[]T) *T {
	if len(*chunk) == 0 {
		*chunk = make([]T, chunkOf)
	}
	e := &(*chunk)[0]
	*chunk = (*chunk)[1:]
	return e
}

// beginBuild starts a build's snapshot bodies: in snapBytes, or in a new block with
// every subject and id made anew (no reuse of prev) once snapBytes has taken as much
// since the last full build as that build did.
func (b *builder) beginBuild() {
	if b.keep == nil {
		b.keep = &block.Block{}
	}
	if b.snapBytes == nil || b.snapBytes.Len()-b.fullBytes > b.fullBytes {
		b.snapBytes, b.prev = &block.Block{}, nil
		b.subjectChunk, b.idChunk = nil, nil // their entries may belong to the old snapshot
	}
}

// build makes a snapshot of ix. text returns a version's schema text; it is called
// only for versions not seen by an earlier build.
func (b *builder) build(ix *versions.Index, text func(versions.Version) ([]byte, error)) (*snapshot, error) {
	if b.entries == nil {
		b.entries = map[versions.SubjectVersion]*versionEntry{}
	}
	if b.prev == nil && b.contractsFile != "" {
		b.contracts = openDataContracts(b.contractsFile, b.log)
		defer func() { b.contracts = nil }()
	}
	names := ix.Subjects()
	b.beginBuild()
	full := b.prev == nil
	if !b.dictMade {
		if err := b.makeDict(ix, names, text); err != nil {
			return nil, err
		}
	}
	same := bodies{m: map[string][]byte{}, blk: b.snapBytes}
	snap := &snapshot{head: ix.Head, commit: []string{ix.Head}, subjects: make(map[string]*subjectEntry, len(names)), ids: make([]*idEntry, len(ix.Schemas))}
	var current []string
	for _, s := range names {
		h := ix.BySubject[s]
		if se := b.reusable(ix, s, h); se != nil {
			snap.subjects[s] = se
			if !se.deleted {
				current = append(current, s)
			}
			continue
		}
		se := b.newSubject()
		*se = subjectEntry{name: s, folder: h.Folder, deleted: h.Current == 0}
		se.level = levelAt(ix, h)
		nums := make([]int, 0, len(h.Versions))
		for _, v := range h.Versions {
			key := versions.SubjectVersion{Subject: s, Version: v.Version}
			ve := b.entries[key]
			if ve == nil || ve.v.Blob != v.Blob {
				data, err := text(v)
				if err != nil {
					return nil, err
				}
				ve = b.newVersion()
				*ve = versionEntry{v: refOf(v), typ: TypeOf(v.Format), importPath: importPathOf(v.Path)}
				ve.refs = referencesOf(v)
				if ve.typ == Protobuf {
					ve.pb = &descriptorForm{}
				}
				meta, rules, group := b.dataContract(v)
				ve.group = group
				body := mustJSON(Schema{Subject: s, Version: v.Version, ID: v.ID, SchemaType: typeForRequest(ve.typ), References: ve.refs,
					Metadata: meta, RuleSet: rules, Schema: string(data)})
				ve.schemaAt = bytes.LastIndex(body, schemaMember)
				back, err := schemaOf(body, ve.schemaAt)
				if err != nil {
					return nil, fmt.Errorf("read the schema of %s version %d back from its body: %w", s, v.Version, err)
				}
				if back != string(data) {
					return nil, fmt.Errorf("the body of %s version %d does not end with its schema", s, v.Version)
				}
				ve.norm = normOf(ve.typ, v, data)
				ve.bodyTag = b.keep.String(etagOf(body))
				ve.latestHeader = [2]string{b.keep.String(strconv.Itoa(len(body))), ve.bodyTag}
				ve.body = pack(b.dict, body, &b.scratch, b.keep)
				b.entries[key] = ve
			}
			se.versions = append(se.versions, ve)
			nums = append(nums, v.Version)
		}
		se.versionsBody = same.of(mustJSON(nums))
		group, n := "", h.Current
		if n == 0 {
			n = len(se.versions) // deleted: the one it was last published with
		}
		if n > 0 && n <= len(se.versions) {
			group = se.versions[n-1].group // the compatibilityGroup of its current contract.yaml
		}
		se.configBody = same.of(mustJSON(configBody{CompatibilityLevel: se.level, Compatibility: se.level, CompatibilityGroup: group}))
		se.current = h.Current
		snap.subjects[s] = se
		if !se.deleted {
			current = append(current, s)
		}
	}
	snap.listBody = b.snapBytes.Bytes(mustJSON(nonNil(current)))
	snap.listAllBody = b.snapBytes.Bytes(mustJSON(nonNil(names)))
	snap.configBody = levelBody(DefaultLevel)
	for i, e := range ix.Schemas {
		uses := make([]SubjectVersion, 0, len(e.Uses))
		var subs []string
		var first *versionEntry
		for _, u := range e.Uses {
			se := snap.subjects[u.Subject]
			if se == nil || u.Version < 1 || u.Version > len(se.versions) {
				continue
			}
			if first == nil {
				first = se.versions[u.Version-1]
			}
			uses = append(uses, SubjectVersion{u.Subject, u.Version})
			if len(subs) == 0 || subs[len(subs)-1] != u.Subject {
				subs = append(subs, u.Subject)
			}
		}
		if first == nil {
			continue
		}
		if b.prev != nil && i < len(b.prev.ids) {
			if pe := b.prev.ids[i]; pe != nil && pe.uses == len(uses) && pe.first == first {
				snap.ids[i] = pe
				continue
			}
		}
		sort.Strings(subs)
		subs = dedupe(subs)
		// The first version's body, inflated once: its schema member, its data contract
		// and its schema text are read from it.
		fb := first.body.bytes()
		member := fb[first.schemaAt:] // contractOf writes only before it
		text, _ := schemaOf(fb, first.schemaAt)
		meta, rules := contractOf(fb, first.schemaAt)
		body := mustJSON(Schema{SchemaType: typeForRequest(first.typ), References: first.refs, Metadata: meta, RuleSet: rules, Schema: text})
		var head, tail []byte
		if at := bytes.LastIndex(body, schemaMember); at >= 0 && first.schemaAt >= 0 && bytes.Equal(body[at:], member) {
			head = same.of(body[:at])
		} else {
			head, tail = same.blk.Bytes(body), []byte{} // the whole body, in head (tail not nil: not shared)
		}
		e := b.newID()
		*e = idEntry{
			head:         head,
			tail:         tail,
			bodyTag:      same.blk.String(etagOf(body)),
			versionsBody: same.of(mustJSON(uses)),
			subjectsBody: same.of(mustJSON(subs)),
			uses:         len(uses),
			first:        first,
		}
		snap.ids[i] = e
	}
	b.prev = snap
	if full {
		b.fullBytes = b.snapBytes.Len()
	}
	if b.contracts != nil {
		b.contracts.save()
	}
	return snap, nil
}

// makeDict makes the dictionary bodies are packed with from the latest versions of up
// to dictSamples subjects spread over names (their bodies without metadata: what
// bodies have most in common is the JSON of their schemas). Once made it is kept:
// a version's packed body never changes.
func (b *builder) makeDict(ix *versions.Index, names []string, text func(versions.Version) ([]byte, error)) error {
	var samples [][]byte
	step := max(1, len(names)/dictSamples)
	for i := 0; i < len(names); i += step {
		h := ix.BySubject[names[i]]
		if len(h.Versions) == 0 {
			continue
		}
		v := h.Versions[len(h.Versions)-1]
		data, err := text(v)
		if err != nil {
			return err
		}
		samples = append(samples, mustJSON(Schema{Subject: names[i], Version: v.Version, ID: v.ID, SchemaType: typeForRequest(TypeOf(v.Format)), Schema: string(data)}))
	}
	if len(samples) > 0 {
		b.dict, b.dictMade = makeDict(samples), true
	}
	return nil
}

// dataContract is the data contract of a version: contract.yaml's owner, tier, topic
// and PII fields (metadata) and its rules (ruleSet) at the commit where the version
// first appeared (nil when it cannot be read).
func (b *builder) dataContract(v versions.Version) (*Metadata, *RuleSet, string) {
	if b.contractAt == nil {
		return nil, nil, ""
	}
	c, ok := dataContract{}, false
	if b.contracts != nil {
		c, ok = b.contracts.get(v)
	}
	if !ok {
		data, err := b.contractAt(v)
		if err != nil {
			return nil, nil, ""
		}
		s := contract.DecodeDataContract(path.Dir(v.Path)+"/"+contract.ContractFile, data)
		c = dataContract{Metadata: MetadataOf(s), RuleSet: RuleSetOf(s), Group: GroupOf(s)}
		if b.contracts != nil {
			b.contracts.put(v, c)
		}
	}
	rules := c.RuleSet
	if rules == nil && strings.HasSuffix(v.DataContract, versions.EmptiedRuleSet) {
		rules = &RuleSet{} // registered with an empty ruleSet, so that the latest's rules are not carried over
	}
	return c.Metadata, rules, c.Group
}

// reusable returns the previous snapshot's entry for subject when nothing of it
// changed: same versions, same folder, level and current version.
func (b *builder) reusable(ix *versions.Index, subject string, h *versions.SubjectHistory) *subjectEntry {
	if b.prev == nil {
		return nil
	}
	se := b.prev.subjects[subject]
	if se == nil || len(se.versions) != len(h.Versions) || se.folder != h.Folder || se.current != h.Current {
		return nil
	}
	if n := len(h.Versions); n > 0 && se.versions[n-1].v.Blob != h.Versions[n-1].Blob {
		return nil
	}
	if levelAt(ix, h) != se.level {
		return nil
	}
	return se
}

// levelAt is a subject's level: its contract.yaml's at head, else (a deleted subject)
// the one its latest version was published under, else DefaultLevel.
func levelAt(ix *versions.Index, h *versions.SubjectHistory) string {
	if fs := ix.Folders[h.Folder]; h.Folder != "" && fs != nil && fs.Compatibility != "" {
		return strings.ToUpper(fs.Compatibility)
	}
	if n := len(h.Versions); n > 0 && h.Versions[n-1].Compatibility != "" {
		return strings.ToUpper(h.Versions[n-1].Compatibility)
	}
	return DefaultLevel
}

// referencesOf is a version's references as the index computed them (they are part
// of its id, so the id and the references served can never disagree).
func referencesOf(v versions.Version) []Reference {
	var refs []Reference
	for _, r := range v.References {
		refs = append(refs, Reference{Name: r.Name, Subject: r.Subject, Version: r.Version})
	}
	return refs
}

func importPathOf(p string) string { return strings.TrimPrefix(p, versions.ContractsDir+"/") }

// canonical is the key a schema text is matched by: its canonical form in the format
// of its type (checker.Canonical), as a Confluent registry identifies schemas, so
// texts that differ in layout only (white space, comments, the order of the keys
// Avro reads) are one schema. ok is false when the text does not parse in that
// format; the key is then the text itself behind a prefix no canonical form has.
//
// The key is checker.CanonicalKey of that form (its SHA-256, as the versions index
// keys versions), not the form itself: a snapshot keeps one per version, and the
// forms would be as large as the texts.
func canonical(t SchemaType, text []byte) (key string, ok bool) {
	eng, _ := EngineOf(t)
	c, err := checker.Canonical(eng, text)
	if err != nil {
		sum := sha256.Sum256(append([]byte("\x00unparsable\x00"), text...))
		return string(sum[:]), false // 32 bytes: never a CanonicalKey (64 hex digits)
	}
	return checker.CanonicalKey(c), true
}

// normOf is canonical(t, text) of a version: the index's key of its canonical form
// when the index read it with the engine of its format (no second parse), else
// computed.
func normOf(t SchemaType, v versions.Version, text []byte) string {
	if _, ok := formats.Lookup(v.Format); ok && !strings.HasPrefix(v.Canonical, "blob:") {
		return v.Canonical
	}
	key, _ := canonical(t, text)
	return key
}

// schemaMember starts the last member of a Schema's JSON.
var schemaMember = []byte(`"schema":`)

func levelBody(level string) []byte {
	// compatibilityLevel is what Confluent answers; compatibility is also sent because
	// some clients (hamba/avro's registry client) read that key.
	return mustJSON(configBody{CompatibilityLevel: level, Compatibility: level})
}

// bodies shares equal small bodies within one build: most subjects answer the same
// GET /config/{s} and GET /subjects/{s}/versions, and most ids the same head before
// their "schema" member. At 100,000 subjects the copies were about 18 MB of the heap.
// Bodies are never written to once built.
type bodies struct {
	m   map[string][]byte
	blk *block.Block // where the copies are kept
}

const maxShared = 256

// of returns the body equal to b made earlier in the build, else a copy of b, kept.
func (s bodies) of(b []byte) []byte {
	if len(b) > maxShared {
		return s.blk.Bytes(b) // rarely repeated; the map would hold a second copy
	}
	if c, ok := s.m[string(b)]; ok {
		return c
	}
	c := s.blk.Bytes(b)
	s.m[string(c)] = c
	return c
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain data is marshalled
	}
	return b
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
