package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/formats"
	"github.com/contractbot/contractbot/checker/located"
)

var (
	reSubject = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	reTopic   = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
)

// Allowed values of contract.yaml.
var (
	Tiers         = []string{"core", "standard"}
	ProtobufRules = []string{"WIRE", "WIRE_JSON"}
	levelNames    = func() []string {
		var out []string
		for _, l := range checker.Levels() {
			out = append(out, string(l))
		}
		return out
	}()
)

// DefaultSignoffHours is the sign-off window when contract.yaml names none.
const DefaultSignoffHours = 24

// loadSubject reads one subject folder: contract.yaml, the schema, the consumers.
func (l *loader) loadSubject(sd subjectDir, ds *Diagnostics) (s *Subject) {
	defer func() {
		// A panic in a parser of the input (ours or a library's) must not take down
		// the process that loads every pull request and serves the pages: the folder
		// becomes an unreadable one with an error on its contract.yaml.
		if p := recover(); p != nil {
			s = nil
			f := &file{path: sd.dir + "/" + ContractFile, diags: ds}
			f.report(Pos{1, 1}, CodeInternal, "contractbot failed while reading this subject (%v) and skipped it; simplify what changed in this folder, and report the bug with the files.", p)
		}
	}()
	return l.loadSubjectFiles(sd, ds)
}

func (l *loader) loadSubjectFiles(sd subjectDir, ds *Diagnostics) *Subject {
	cpath := sd.dir + "/" + ContractFile
	f := &file{path: cpath, diags: ds}
	has := map[string]DirEntry{}
	for _, e := range sd.entries {
		has[e.Name] = e
	}
	if _, ok := has[ContractFile]; !ok {
		for _, e := range sd.entries {
			if !e.Dir && misnamed(e.Name, ContractFile) {
				(&file{path: sd.dir + "/" + e.Name, diags: ds}).report(Pos{1, 1}, CodeFileName, "%s", renameTo(sd.dir+"/"+e.Name, cpath))
				return nil
			}
		}
		f.report(Pos{1, 1}, CodeMissingFile, "the folder %s has no contract.yaml; add one (subject, format, schema, compatibility, owner) or remove the folder.", sd.dir)
		return nil
	}
	data, _, ok := l.read(f, cpath, MaxYAMLBytes)
	if !ok {
		return nil
	}
	o := f.parse(data)
	if o == nil {
		return nil
	}
	s := &Subject{Dir: sd.dir, Domain: sd.domain, Name: sd.name, Tier: "standard", SignoffHours: DefaultSignoffHours, KeyPos: o.keys, subjectPos: o.keys["subject"]}
	o.expect("contract.yaml", []string{"subject", "format", "schema", "compatibility", "owner"},
		[]string{"tier", "topic", "signoff_hours", "description", "protobuf_rules", "message", "fields", "policy", "keys", "sla", "retention", "partitions", "rules", "compatibility_group"})
	head := decodeHead(o, sd.domain, sd.name)
	s.Subject, s.Format, s.Compatibility = head.Subject, head.Format, head.Compatibility
	if v, ok := o.str("owner"); ok {
		if l.checkTeam(f, o.valuePos("owner"), v, "owner") {
			s.Owner = v
		}
	}
	if v, ok := o.str("tier"); ok && o.oneOfValue("tier", v, Tiers) {
		s.Tier = v
	}
	if v, ok := o.str("topic"); ok {
		if reTopic.MatchString(v) && len(v) <= 249 {
			s.Topic = v
		} else {
			f.report(o.valuePos("topic"), CodeInvalidValue, "topic %q is not a valid Kafka topic name: use letters, digits, '.', '_' and '-' (at most 249).", v)
		}
	}
	if v, ok := o.integer("signoff_hours"); ok {
		if v >= 1 && v <= 720 {
			s.SignoffHours = v
		} else {
			f.report(o.valuePos("signoff_hours"), CodeInvalidValue, "signoff_hours must be between 1 and 720 (30 days), found %d.", v)
		}
	}
	if v, ok := o.str("description"); ok {
		s.Description = v
	}
	for _, key := range formatKeys() {
		if o.has(key) && s.Format != "" && !formatAccepts(s.Format, key) {
			f.report(o.keys[key], CodeFormatOption, "%q applies to %s subjects only; remove it from this %s subject.", key, acceptingFormats(key), s.Format)
		}
	}
	if v, ok := o.str("protobuf_rules"); ok && o.oneOfValue("protobuf_rules", v, ProtobufRules) {
		s.ProtobufRules = v
	}
	if v, ok := o.str("message"); ok {
		s.Message = v
	}
	fieldKeys := l.fieldMeta(o, s)
	s.Policy = policy(o)
	s.Group = compatibilityGroup(o)
	keyRefs := tableKeys(o, s)

	s.Rules = rules(o)
	l.loadSchema(f, o, s, has, head.Schema)
	checkTableKeys(f, s, keyRefs, s.undocumented)
	s.undocumented = nil
	checkRules(f, s, s.ruleTypes)
	s.ruleTypes = nil
	if paths := s.FieldPaths(); paths != nil {
		for _, k := range fieldKeys {
			if !s.HasFieldPath(k.val) {
				f.report(k.pos, CodeUnknownField, "field %q in fields: does not exist in %s.%s", k.val, s.SchemaFile, fieldHint(k.val, paths))
			}
		}
	}
	if c, ok := has[ConsumersDir]; ok {
		switch {
		case c.Symlink:
			// reported with the folder's other links below
		case !c.Dir:
			f2 := &file{path: sd.dir + "/" + ConsumersDir, diags: ds}
			f2.report(Pos{1, 1}, CodeLayout, "consumers must be a folder of <consumer>.yaml files, not a file or link.")
		default:
			s.Consumers = l.loadConsumers(s, ds)
		}
	}
	checkDeprecations(f, s, ds)
	checkOpenLineageKeys(s, ds)
	checkBlackBoxes(s, ds)
	for _, e := range sd.entries {
		p := sd.dir + "/" + e.Name
		switch {
		case e.Symlink && p == s.SchemaFile:
			// reported when the schema was read
		case e.Symlink:
			(&file{path: p, diags: ds}).report(Pos{1, 1}, CodeSymlink, "%s is a symbolic link; the loader never follows links. Replace it with the real file.", p)
		case e.Dir && e.Name != ConsumersDir:
			(&file{path: p, diags: ds}).report(Pos{1, 1}, CodeLayout, "%s is not part of the layout: a subject folder holds contract.yaml, the schema, other schema files it imports, and consumers/.", p)
		}
	}
	return s
}

// fieldMeta reads the optional fields: mapping; it returns the keys for the check
// against the schema once that is parsed.
func (l *loader) fieldMeta(o *object, s *Subject) []item {
	fo := o.child("fields", "fields")
	if fo == nil {
		return nil
	}
	var keys []item
	s.Fields, s.FieldPos = map[string]FieldMeta{}, map[string]Pos{}
	for _, name := range fo.names() {
		keys = append(keys, item{name, fo.keys[name]})
		s.FieldPos[name] = fo.keys[name]
		fm := fo.child(name, fmt.Sprintf("field %q", name))
		if fm == nil {
			continue
		}
		fm.expect(fmt.Sprintf("field %q", name), nil, []string{"pii", "doc", "unit", "deprecated"})
		var meta FieldMeta
		meta.PII, _ = fm.boolean("pii")
		meta.Doc, _ = fm.str("doc")
		meta.Unit, _ = fm.str("unit")
		meta.Deprecated = deprecation(fm, name)
		s.Fields[name] = meta
	}
	return keys
}

// checkTeam reports an owner that is not in teams.yaml.
func (l *loader) checkTeam(f *file, p Pos, id, key string) bool {
	if l.teams == nil {
		return true // teams.yaml itself is broken or missing: reported there
	}
	if _, ok := l.teams[id]; ok {
		return true
	}
	ids := make([]string, 0, len(l.teams))
	for k := range l.teams {
		ids = append(ids, k)
	}
	sort.Strings(ids)
	f.report(p, CodeUnknownTeam, "%s %q is not a team in %s; add it there or use an existing team.%s", key, id, TeamsFile, didYouMean(id, ids))
	return false
}

// loadSchema reads and parses the schema file named by contract.yaml.
// name is the head's schema ("" when missing or invalid, reported by decodeHead).
func (l *loader) loadSchema(f *file, o *object, s *Subject, has map[string]DirEntry, name string) {
	if name == "" {
		return
	}
	s.SchemaFile = relJoin(s.Dir, name)
	eng, known := formats.Lookup(s.Format)
	if known {
		d := eng.Describe()
		if !slices.Contains(d.Extensions, path.Ext(name)) {
			other := ""
			if e, ok := formats.ByExtension(name); ok {
				other = " or set format: " + string(e.Describe().Format)
			}
			f.report(o.valuePos("schema"), CodeSchemaExtension, "%s %s schema file ends in %s; rename %s%s.", article(d.Name), d.Name, d.Extensions[0], name, other)
		}
	}
	if l.noSchemas {
		return
	}
	sf := &file{path: s.SchemaFile, diags: f.diags}
	data, found, ok := l.read(sf, s.SchemaFile, MaxSchemaBytes)
	if !found {
		var files []string
		for n, e := range has {
			if !e.Dir && n != ContractFile {
				files = append(files, n)
			}
		}
		sort.Strings(files)
		hint := didYouMean(name, files)
		if hint == "" && len(files) > 0 {
			hint = fmt.Sprintf(" Files in the folder: %s.", strings.Join(files, ", "))
		}
		f.report(o.valuePos("schema"), CodeSchemaMissing, "schema file %s does not exist; add it or correct the name.%s", s.SchemaFile, hint)
		return
	}
	if !ok {
		return
	}
	s.SchemaText = data
	if !known {
		return
	}
	src := l.schemaSource(s.SchemaFile, s.Message, data)
	parse := func() (checker.Schema, error) { return eng.Parse(src) }
	// The parsed schema is dropped at the end and parsed again on demand
	// (Subject.Schema): most callers need only the field paths of most subjects. The
	// folders a partial load was asked for keep theirs.
	var key [32]byte
	cached := l.parses != nil && len(s.Rules) == 0 && !l.keep[s.Dir]
	if cached {
		key = l.parses.parseKey(s.SchemaFile, s.Format, s.Message, data)
		if e, hit := l.parses.get(key, l.resolveProto); hit {
			if facts, ok := e.facts(); ok {
				s.parse = parse
				l.recordFacts(s, sf, data, facts)
				return
			}
		}
	}
	sch, err := parse()
	if err != nil {
		l.schemaError(sf, err)
		return
	}
	facts := schemaFacts{paths: sch.FieldPaths(), graph: sch.FieldGraph(), undocumented: undocumentedTop(sch),
		cut: sch.FieldPathsCut(), deps: sch.Dependencies()}
	if len(s.Rules) > 0 {
		s.ruleTypes = newRuleTypes(sch)
	}
	if cached {
		l.parses.put(key, facts, l.resolveProto)
	}
	s.parse = parse
	l.recordFacts(s, sf, data, facts)
	if l.keep[s.Dir] {
		s.once.Do(func() { s.schema = sch })
	}
}

// schemaSource is what an engine parses: a schema file of the tree, its imports
// read through resolveProto.
func (l *loader) schemaSource(file, record string, data []byte) checker.ParseInput {
	return checker.ParseInput{
		Input:   checker.Input{Path: file, Data: data},
		Name:    strings.TrimPrefix(file, ContractsDir+"/"),
		Resolve: l.resolveProto,
		Record:  record,
	}
}

// reparse parses a subject's schema from its file again, for a subject whose text
// was dropped (LoadForLint); the subject's schema parsed at load.
func (l *loader) reparse(s *Subject) func() (checker.Schema, error) {
	eng, file, record := s.Engine(), s.SchemaFile, s.Message
	return func() (checker.Schema, error) {
		data, err := l.src.ReadFile(file, MaxSchemaBytes)
		if err != nil {
			return nil, fmt.Errorf("read %s again: %w", file, err)
		}
		return eng.Parse(l.schemaSource(file, record, data))
	}
}

// schemaFacts is what a load keeps of a parsed schema (ParseCache keeps the same).
type schemaFacts struct {
	paths        []string
	graph        *checker.FieldGraph
	undocumented []item
	cut          *checker.InputError
	deps         []string // the files it imports, in order
}

// recordFacts sets a subject's field paths and graph and its schema's digest (the
// schema's text and every file it imports), and warns where a listing is cut.
func (l *loader) recordFacts(s *Subject, sf *file, data []byte, f schemaFacts) {
	digest := sha256.New()
	digest.Write(data)
	s.fieldPaths, s.fieldGraph = f.paths, f.graph
	s.undocumented = f.undocumented
	for _, p := range f.deps {
		text, _ := l.resolveProto(p)
		fmt.Fprintf(digest, "\x00%s\x00%d\x00", p, len(text))
		digest.Write(text)
	}
	if f.cut != nil {
		l.fieldPathsCut(sf, f.cut)
	}
	s.Digest = hex.EncodeToString(digest.Sum(nil))
	if !sort.StringsAreSorted(s.fieldPaths) {
		s.fieldPaths = append([]string(nil), s.fieldPaths...)
		sort.Strings(s.fieldPaths)
	}
}

// schemaError turns an engine's input error into diagnostics on the right file.
func (l *loader) schemaError(f *file, err error) {
	var ie *checker.InputError
	for _, e := range splitErrors(err) {
		if errors.As(e, &ie) {
			(&file{path: orPath(RepoPath(ie.File), f.path), diags: f.diags}).report(Pos{ie.Line, ie.Column}, CodeSchemaInvalid, "%s", strings.TrimSuffix(ie.Message, ".")+".")
			continue
		}
		f.report(Pos{1, 1}, CodeSchemaInvalid, "the schema does not parse: %v.", e)
	}
}

// fieldPathsCut warns, at the field where it stops, that a schema's listing of field
// paths is cut (checker.MaxFieldPaths).
func (l *loader) fieldPathsCut(f *file, ie *checker.InputError) {
	*f.diags = append(*f.diags, Diagnostic{Span: located.Span{File: orPath(RepoPath(ie.File), f.path), Line: max(ie.Line, 1), Column: max(ie.Column, 1)},
		Severity: Warning, Code: CodeFieldPathsCut, Message: ie.Message})
}

// RepoPath is the one mapping of a file name an engine reports (in a finding, a field
// change or an input error) to its path in the repository: a schema's own file is
// named by its path already, a file it imports by the name the tree's files use for
// each other (a Protobuf import path, relative to contracts/). The well-known Protobuf
// types are not in the tree and keep their names; "" stays "".
func RepoPath(name string) string {
	if name == "" || strings.HasPrefix(name, ContractsDir+"/") || strings.HasPrefix(name, "google/protobuf/") {
		return name
	}
	return ContractsDir + "/" + name
}

// orPath is p, or def when p is empty.
func orPath(p, def string) string {
	if p == "" {
		return def
	}
	return p
}

// splitErrors unpacks errors.Join results.
func splitErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// resolveProto serves the files schemas import (Protobuf imports) from contracts/
// only, each file read once.
func (l *loader) resolveProto(importPath string) ([]byte, error) {
	if err := cleanRel(importPath); err != nil {
		return nil, fmt.Errorf("import %q reaches outside contracts/: %w", importPath, fs.ErrNotExist)
	}
	if v, ok := l.protoFiles.Load(importPath); ok {
		pf := v.(protoFile)
		return pf.data, pf.err
	}
	data, err := l.src.ReadFile(ContractsDir+"/"+importPath, MaxSchemaBytes)
	l.protoFiles.Store(importPath, protoFile{data, err})
	return data, err
}

// formatKeys lists the contract.yaml keys that only some formats accept, sorted.
func formatKeys() []string {
	var keys []string
	for _, e := range formats.All() {
		keys = append(keys, e.Describe().ContractKeys...)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// formatAccepts reports whether a format's engine accepts a contract.yaml key that
// only some formats accept.
func formatAccepts(format, key string) bool {
	e, ok := formats.Lookup(format)
	return ok && slices.Contains(e.Describe().ContractKeys, key)
}

// acceptingFormats names the formats that accept a contract.yaml key, for a message:
// "Protobuf", "Protobuf or JSON Schema".
func acceptingFormats(key string) string {
	var names []string
	for _, e := range formats.All() {
		if d := e.Describe(); slices.Contains(d.ContractKeys, key) {
			names = append(names, d.Name)
		}
	}
	return orJoin(names)
}

// orJoin renders "a", "a or b", "a, b or c".
func orJoin(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// article is "an" before a name that starts with a vowel, else "a".
func article(name string) string {
	if name != "" && strings.ContainsRune("AEIOUaeiou", rune(name[0])) {
		return "an"
	}
	return "a"
}
