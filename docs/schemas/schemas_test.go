package schemas

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"

	"github.com/bufbuild/protocompile"
	"github.com/hamba/avro/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// schemaFiles are the JSON Schemas of docs/schemas, by file name.
var schemaFiles = []string{
	"teams.schema.json",
	"contract.schema.json",
	"consumer.schema.json",
	"calendar-entry.schema.json",
	"freezes.schema.json",
}

const idBase = "https://raw.githubusercontent.com/contractbot/contractbot/main/docs/schemas/"

// diagnosticCodes are the loader's diagnostic codes a bad file may expect.
var diagnosticCodes = map[string]bool{
	"yaml-syntax":   true,
	"unknown-key":   true,
	"missing-key":   true,
	"wrong-type":    true,
	"invalid-value": true,
}

// compileSchemas compiles every JSON Schema of docs/schemas, keyed by file name.
func compileSchemas(t *testing.T, root string) map[string]*jsonschema.Schema {
	t.Helper()
	out := map[string]*jsonschema.Schema{}
	for _, name := range schemaFiles {
		b, err := os.ReadFile(filepath.Join(root, "docs", "schemas", name))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: not JSON: %v", name, err)
		}
		c := jsonschema.NewCompiler()
		id := idBase + name
		if err := c.AddResource(id, doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sch, err := c.Compile(id)
		if err != nil {
			t.Fatalf("%s: does not compile: %v", name, err)
		}
		out[name] = sch
	}
	return out
}

// decodeYAML decodes YAML into the plain JSON data model (maps with string keys,
// slices, strings, numbers, booleans, nil).
func decodeYAML(b []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return normalize(v), nil
}

func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = normalize(x)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[fmt.Sprint(k)] = normalize(x)
		}
		return m
	case []any:
		for i, x := range v {
			v[i] = normalize(x)
		}
		return v
	}
	return v
}

func readJSON(t *testing.T, file string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	m, ok := doc.(map[string]any)
	if !ok {
		t.Fatalf("%s: not a JSON object", file)
	}
	return m
}

// TestJSONSchemaFilesWellFormed checks that every schema compiles as draft 2020-12 and
// keeps the house rules: $id and title, a description on every property, and every
// object schema says what it does with other properties.
func TestJSONSchemaFilesWellFormed(t *testing.T) {
	root := testutil.RepoRoot(t)
	compileSchemas(t, root)
	for _, name := range schemaFiles {
		doc := readJSON(t, filepath.Join(root, "docs", "schemas", name))
		if got := doc["$schema"]; got != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema is %v, want draft 2020-12", name, got)
		}
		if got := doc["$id"]; got != idBase+name {
			t.Errorf("%s: $id is %v, want %s", name, got, idBase+name)
		}
		if s, _ := doc["title"].(string); s == "" {
			t.Errorf("%s: no title", name)
		}
		walkSchema(doc, "#", func(node map[string]any, ptr string) {
			if node["type"] != "object" {
				return
			}
			if _, ok := node["additionalProperties"]; !ok {
				t.Errorf("%s %s: object schema without additionalProperties", name, ptr)
			}
			props, _ := node["properties"].(map[string]any)
			for key, p := range props {
				pm, ok := p.(map[string]any)
				if !ok {
					t.Errorf("%s %s/properties/%s: not a schema object", name, ptr, key)
					continue
				}
				if s, _ := pm["description"].(string); s == "" {
					t.Errorf("%s %s/properties/%s: no description", name, ptr, key)
				}
			}
		})
	}
	// ForFile and the schema list agree.
	for _, name := range schemaFiles {
		if _, err := FS.ReadFile(name); err != nil {
			t.Errorf("embedded FS lacks %s", name)
		}
	}
}

func walkSchema(v any, ptr string, fn func(map[string]any, string)) {
	switch v := v.(type) {
	case map[string]any:
		fn(v, ptr)
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walkSchema(v[k], ptr+"/"+k, fn)
		}
	case []any:
		for i, x := range v {
			walkSchema(x, fmt.Sprintf("%s/%d", ptr, i), fn)
		}
	}
}

// treeFiles lists the files under contracts/ and calendar/, slash-separated and
// relative to the repository root.
func treeFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"contracts", "calendar"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type()&fs.ModeSymlink != 0 {
				return fmt.Errorf("%s: symlinks are not allowed in the tree", p)
			}
			if d.IsDir() {
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(files)
	return files
}

// TestJSONSchemaExampleTree validates every YAML file of contracts/ and calendar/
// against its schema and checks its yaml-language-server line.
func TestJSONSchemaExampleTree(t *testing.T) {
	root := testutil.RepoRoot(t)
	schemas := compileSchemas(t, root)
	n := 0
	for _, rel := range treeFiles(t, root) {
		if !strings.HasSuffix(rel, ".yaml") {
			continue
		}
		n++
		role := roleOf(rel)
		if role == "" {
			t.Errorf("%s: not a file of the contract format (no schema applies)", rel)
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		// First line: the yaml-language-server comment, pointing at the right schema.
		first, _, _ := strings.Cut(string(b), "\n")
		wantRef, err := filepath.Rel(filepath.Join(root, path.Dir(rel)), filepath.Join(root, "docs", "schemas", role))
		if err != nil {
			t.Fatal(err)
		}
		want := "# yaml-language-server: $schema=" + filepath.ToSlash(wantRef)
		if first != want {
			t.Errorf("%s:1: first line is %q, want %q", rel, first, want)
		}
		ref := strings.TrimPrefix(first, "# yaml-language-server: $schema=")
		if _, err := os.Stat(filepath.Join(root, path.Dir(rel), filepath.FromSlash(ref))); err != nil {
			t.Errorf("%s:1: schema %s does not exist", rel, ref)
		}
		v, err := decodeYAML(b)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if err := schemas[role].Validate(v); err != nil {
			t.Errorf("%s: does not validate against %s:\n%v", rel, role, err)
		}
	}
	if n == 0 {
		t.Fatal("no YAML files in contracts/ and calendar/")
	}
}

// badDir is docs/schemas/testdata/bad: one folder per schema role, named like the schema
// without .schema.json (teams, contract, consumer, calendar-entry, freezes).
func badDir(root string) string {
	return filepath.Join(root, "docs", "schemas", "testdata", "bad")
}

var expectLine = regexp.MustCompile(`^# expect: ([a-z-]+)$`)

// TestJSONSchemaRejectsBadFiles checks that every file in testdata/bad is rejected: by
// the YAML parser when it expects yaml-syntax, by its JSON Schema otherwise. The first
// line "# expect: <code>" names the loader's diagnostic code for the same file; the
// loader's tests check that half.
func TestJSONSchemaRejectsBadFiles(t *testing.T) {
	root := testutil.RepoRoot(t)
	schemas := compileSchemas(t, root)
	n := 0
	codes := map[string]int{}
	err := filepath.WalkDir(badDir(root), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(badDir(root), p)
		rel = filepath.ToSlash(rel)
		if strings.HasSuffix(rel, ".md") {
			return nil // README
		}
		if !strings.HasSuffix(rel, ".yaml") {
			t.Errorf("%s: bad files end in .yaml", rel)
			return nil
		}
		n++
		role, _, ok := strings.Cut(rel, "/")
		sch := schemas[role+".schema.json"]
		if !ok || sch == nil {
			t.Errorf("%s: put bad files in a folder named after their schema (teams, contract, consumer, calendar-entry, freezes)", rel)
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		first, _, _ := strings.Cut(string(b), "\n")
		m := expectLine.FindStringSubmatch(first)
		if m == nil || !diagnosticCodes[m[1]] {
			t.Errorf("%s:1: want \"# expect: <code>\" with code one of yaml-syntax, unknown-key, missing-key, wrong-type, invalid-value; got %q", rel, first)
			return nil
		}
		code := m[1]
		codes[code]++
		v, yerr := decodeYAML(b)
		if code == "yaml-syntax" {
			if yerr == nil {
				t.Errorf("%s: expects yaml-syntax but parses as YAML", rel)
			}
			return nil
		}
		if yerr != nil {
			t.Errorf("%s: expects %s but is not even valid YAML: %v", rel, code, yerr)
			return nil
		}
		verr := sch.Validate(v)
		if verr == nil {
			t.Errorf("%s: expects %s but %s.schema.json accepts it", rel, code, role)
			return nil
		}
		var ve *jsonschema.ValidationError
		if !errors.As(verr, &ve) {
			t.Errorf("%s: %v", rel, verr)
			return nil
		}
		// The schema must reject the file for the reason the loader will give: the
		// expected code is among the codes of the innermost errors (a oneOf failure
		// has one set of reasons per alternative; a plain failure must agree fully).
		got := leafCodes(ve)
		if !got[code] || (len(got) > 1 && !strings.Contains(verr.Error(), "'oneOf' failed")) {
			t.Errorf("%s: expects %s, but the schema rejects it for %v:\n%v", rel, code, keys(got), verr)
		}
		t.Logf("%s (%s): %v", rel, code, oneLine(verr))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 15 {
		t.Errorf("only %d bad files, want at least 15", n)
	}
	for code := range diagnosticCodes {
		if codes[code] == 0 {
			t.Errorf("no bad file expects %s", code)
		}
	}
}

// leafCodes maps the innermost errors of a validation error to the loader's
// diagnostic codes: additionalProperties -> unknown-key, required -> missing-key,
// type -> wrong-type, anything else (enum, pattern, range, ...) -> invalid-value.
func leafCodes(ve *jsonschema.ValidationError) map[string]bool {
	out := map[string]bool{}
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		switch e.ErrorKind.(type) {
		case *kind.AdditionalProperties:
			out["unknown-key"] = true
		case *kind.Required:
			out["missing-key"] = true
		case *kind.Type:
			out["wrong-type"] = true
		default:
			out["invalid-value"] = true
		}
	}
	walk(ve)
	return out
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// subject is what the cross-reference test needs of one subject.
type subject struct {
	dir    string // contracts/<domain>/<name>
	name   string
	format string
	paths  map[string]bool
}

// TestJSONSchemaTreeSchemasParse parses every schema of the tree (Avro with hamba/avro,
// Protobuf with protocompile, imports resolved under contracts/ and the well-known
// types only) and checks the cross-file rules of the format that the JSON Schemas
// cannot express: owners are teams, subjects are unique, consumer names match their
// files, every field path in fields, keys, reads and produces exists in the schema it names,
// calendar entries name existing subjects and teams and are named after their start
// date, freeze names are unique.
func TestJSONSchemaTreeSchemasParse(t *testing.T) {
	root := testutil.RepoRoot(t)
	contracts := filepath.Join(root, "contracts")

	teamsDoc := mustYAMLMap(t, filepath.Join(contracts, "teams.yaml"))
	teams, _ := teamsDoc["teams"].(map[string]any)
	if len(teams) < 6 {
		t.Errorf("teams.yaml: %d teams, want at least 6", len(teams))
	}
	isTeam := func(file, id any) {
		s, _ := id.(string)
		if _, ok := teams[s]; !ok {
			t.Errorf("%s: owner %q is not a team in contracts/teams.yaml", file, s)
		}
	}

	subjects := map[string]*subject{}
	var order []string
	files := treeFiles(t, root)
	for _, rel := range files {
		if roleOf(rel) != "contract.schema.json" {
			continue
		}
		dir := path.Dir(rel)
		doc := mustYAMLMap(t, filepath.Join(root, rel))
		isTeam(rel, doc["owner"])
		name, _ := doc["subject"].(string)
		if prev, dup := subjects[name]; dup {
			t.Errorf("%s: subject %s is already defined in %s", rel, name, prev.dir)
			continue
		}
		s := &subject{dir: dir, name: name, format: doc["format"].(string)}
		schemaFile := path.Join(dir, doc["schema"].(string))
		var paths []string
		var err error
		switch s.format {
		case "avro":
			paths, err = avroPaths(filepath.Join(root, schemaFile))
		case "protobuf":
			msg, _ := doc["message"].(string)
			paths, err = protoPaths(contracts, strings.TrimPrefix(schemaFile, "contracts/"), msg)
		case "json":
			paths, err = jsonSchemaPaths(filepath.Join(root, schemaFile))
		}
		if err != nil {
			t.Errorf("%s: %v", schemaFile, err)
			continue
		}
		t.Logf("%s: %s", name, strings.Join(paths, " "))
		s.paths = map[string]bool{}
		for _, p := range paths {
			s.paths[p] = true
		}
		fields, _ := doc["fields"].(map[string]any)
		for p := range fields {
			if !s.paths[p] {
				t.Errorf("%s: fields: %s is not a field of %s (fields: %s)", rel, p, schemaFile, strings.Join(paths, ", "))
			}
		}
		keys, _ := doc["keys"].(map[string]any)
		for k, v := range keys {
			names, _ := v.([]any)
			if str, ok := v.(string); ok {
				names = []any{str}
			}
			for _, n := range names {
				if p, _ := n.(string); !s.paths[p] {
					t.Errorf("%s: keys: %s names %v, not a field of %s", rel, k, n, schemaFile)
				}
			}
		}
		subjects[name] = s
		order = append(order, name)
	}
	if len(subjects) < 11 {
		t.Errorf("%d subjects, want at least 11", len(subjects))
	}

	// Consumers: names, owners, reads and lineage. edges collects the lineage graph
	// subject -> consumer -> produced subject.
	type edge struct{ consumer, to string }
	edges := map[string][]edge{}
	for _, rel := range files {
		if roleOf(rel) != "consumer.schema.json" {
			continue
		}
		dir := path.Dir(path.Dir(rel))
		var s *subject
		for _, x := range subjects {
			if x.dir == dir {
				s = x
			}
		}
		if s == nil {
			t.Errorf("%s: no valid contract.yaml in %s", rel, dir)
			continue
		}
		doc := mustYAMLMap(t, filepath.Join(root, rel))
		isTeam(rel, doc["owner"])
		name, _ := doc["name"].(string)
		if name+".yaml" != path.Base(rel) {
			t.Errorf("%s: name %q differs from the file name", rel, name)
		}
		reads, _ := doc["reads"].([]any)
		for _, r := range reads {
			if r != "*" && !s.paths[r.(string)] {
				t.Errorf("%s: reads %v, which is not a field of %s", rel, r, s.name)
			}
		}
		produces, _ := doc["produces"].(map[string]any)
		if len(produces) == 0 {
			edges[s.name] = append(edges[s.name], edge{consumer: name})
		}
		for out, m := range produces {
			o := subjects[out]
			if o == nil {
				t.Errorf("%s: produces %s, which is not a subject in the tree", rel, out)
				continue
			}
			edges[s.name] = append(edges[s.name], edge{consumer: name, to: out})
			for of, ins := range m.(map[string]any) {
				if !o.paths[of] {
					t.Errorf("%s: produces %s.%s, which is not a field of %s", rel, out, of, out)
				}
				for _, in := range ins.([]any) {
					if !s.paths[in.(string)] {
						t.Errorf("%s: %s.%s <- %v, which is not a field of %s", rel, out, of, in, s.name)
					}
				}
			}
		}
	}

	// The demo's lineage chain, two produces steps (2 hops) deep: subject -> consumer -> subject ...
	chain := [][3]string{
		{"orders.order-created-value", "dwd-order-detail", "dw.order-detail-value"},
		{"dw.order-detail-value", "dws-gmv-1min", "dws.gmv-1min-value"},
		{"dws.gmv-1min-value", "gmv-dashboard", ""},
	}
	for _, hop := range chain {
		found := false
		for _, e := range edges[hop[0]] {
			if e.consumer == hop[1] && e.to == hop[2] {
				found = true
			}
		}
		if !found {
			t.Errorf("lineage: no edge %s -> %s -> %q", hop[0], hop[1], hop[2])
		}
	}

	// Calendar.
	entryName := regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})-[a-z0-9][a-z0-9-]*\.yaml$`)
	for _, rel := range files {
		switch roleOf(rel) {
		case "calendar-entry.schema.json":
			doc := mustYAMLMap(t, filepath.Join(root, rel))
			isTeam(rel, doc["owner"])
			for _, s := range doc["subjects"].([]any) {
				if subjects[s.(string)] == nil {
					t.Errorf("%s: subject %v is not in the tree", rel, s)
				}
			}
			m := entryName.FindStringSubmatch(path.Base(rel))
			start, _ := doc["window"].(map[string]any)["start"].(string)
			if m == nil || !strings.HasPrefix(start, m[1]) {
				t.Errorf("%s: the file name must be <start date>-<slug>.yaml (start %s)", rel, start)
			}
			end, _ := doc["window"].(map[string]any)["end"].(string)
			if end <= start {
				t.Errorf("%s: window end %s is not after start %s", rel, end, start)
			}
		case "freezes.schema.json":
			doc := mustYAMLMap(t, filepath.Join(root, rel))
			seen := map[string]bool{}
			for _, f := range doc["freezes"].([]any) {
				name := f.(map[string]any)["name"].(string)
				if seen[name] {
					t.Errorf("%s: freeze %s is defined twice", rel, name)
				}
				seen[name] = true
			}
		}
	}
	t.Logf("subjects: %s", strings.Join(order, ", "))
}

func mustYAMLMap(t *testing.T, file string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	v, err := decodeYAML(b)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: not a mapping", file)
	}
	return m
}

// avroPaths parses an Avro schema with hamba/avro (own cache, so named types of
// different files do not meet) and returns its dotted field paths: records by field
// name, unions, arrays and maps transparent.
// jsonSchemaPaths lists a JSON Schema's dotted property paths with encoding/json alone
// (an independent reading, not the engine's): properties nest, items, combinations and
// local $ref are transparent.
func jsonSchemaPaths(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var root map[string]any
	if err := json.Unmarshal(b, &root); err != nil {
		return nil, err
	}
	var out []string
	var walk func(s any, prefix string, depth int)
	walk = func(s any, prefix string, depth int) {
		m, ok := s.(map[string]any)
		if !ok || depth > 32 {
			return
		}
		if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#/") {
			var target any = root
			for _, tok := range strings.Split(ref[2:], "/") {
				tm, _ := target.(map[string]any)
				target = tm[tok]
			}
			walk(target, prefix, depth+1)
		}
		if props, ok := m["properties"].(map[string]any); ok {
			for name, p := range props {
				path := name
				if prefix != "" {
					path = prefix + "." + name
				}
				out = append(out, path)
				walk(p, path, depth+1)
			}
		}
		walk(m["items"], prefix, depth+1)
		for _, k := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
			if list, ok := m[k].([]any); ok {
				for _, x := range list {
					walk(x, prefix, depth+1)
				}
			}
		}
	}
	walk(root, "", 0)
	sort.Strings(out)
	return out, nil
}

func avroPaths(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	sch, err := avro.ParseBytesWithCache(b, "", &avro.SchemaCache{})
	if err != nil {
		return nil, err
	}
	rec, ok := sch.(*avro.RecordSchema)
	if !ok {
		return nil, fmt.Errorf("top-level schema is %s, want a record", sch.Type())
	}
	var out []string
	var walk func(s avro.Schema, prefix string, stack map[string]bool)
	walk = func(s avro.Schema, prefix string, stack map[string]bool) {
		switch s := s.(type) {
		case *avro.RefSchema:
			walk(s.Schema(), prefix, stack)
		case *avro.RecordSchema:
			if stack[s.FullName()] {
				return // recursive type: its paths are already listed once
			}
			stack[s.FullName()] = true
			defer delete(stack, s.FullName())
			for _, f := range s.Fields() {
				p := f.Name()
				if prefix != "" {
					p = prefix + "." + p
				}
				out = append(out, p)
				walk(f.Type(), p, stack)
			}
		case *avro.UnionSchema:
			for _, x := range s.Types() {
				walk(x, prefix, stack)
			}
		case *avro.ArraySchema:
			walk(s.Items(), prefix, stack)
		case *avro.MapSchema:
			walk(s.Values(), prefix, stack)
		}
	}
	walk(rec, "", map[string]bool{})
	return out, nil
}

// protoPaths compiles a .proto file (name relative to contracts/) with protocompile,
// resolving imports only under contracts/ and from the well-known types, and returns
// the dotted field paths of the record message (msg, or the file's first message):
// messages by field name, repeated fields, maps and oneofs transparent.
func protoPaths(contracts, name, msg string) ([]string, error) {
	abs, err := filepath.Abs(contracts)
	if err != nil {
		return nil, err
	}
	comp := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			ImportPaths: []string{abs},
			Accessor: func(p string) (io.ReadCloser, error) {
				rel, err := filepath.Rel(abs, p)
				if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
					return nil, fmt.Errorf("%s: imports resolve under contracts/ only", p)
				}
				fi, err := os.Lstat(p)
				if err != nil {
					return nil, err
				}
				if fi.Mode()&fs.ModeSymlink != 0 {
					return nil, fmt.Errorf("%s: symlinks are not allowed", p)
				}
				return os.Open(p)
			},
		}),
	}
	files, err := comp.Compile(context.Background(), name)
	if err != nil {
		return nil, err
	}
	fd := files[0]
	var md protoreflect.MessageDescriptor
	if msg == "" {
		if fd.Messages().Len() == 0 {
			return nil, errors.New("no message in the file")
		}
		md = fd.Messages().Get(0)
	} else {
		md = findMessage(fd.Messages(), protoreflect.FullName(msg))
		if md == nil {
			return nil, fmt.Errorf("message %s is not defined in the file", msg)
		}
	}
	var out []string
	var walk func(m protoreflect.MessageDescriptor, prefix string, stack map[protoreflect.FullName]bool)
	walk = func(m protoreflect.MessageDescriptor, prefix string, stack map[protoreflect.FullName]bool) {
		if stack[m.FullName()] {
			return
		}
		stack[m.FullName()] = true
		defer delete(stack, m.FullName())
		fields := m.Fields()
		for i := 0; i < fields.Len(); i++ {
			f := fields.Get(i)
			p := string(f.Name())
			if prefix != "" {
				p = prefix + "." + p
			}
			out = append(out, p)
			if f.IsMap() {
				f = f.MapValue()
			}
			if f.Message() != nil {
				walk(f.Message(), p, stack)
			}
		}
	}
	walk(md, "", map[protoreflect.FullName]bool{})
	return out, nil
}

func findMessage(ms protoreflect.MessageDescriptors, name protoreflect.FullName) protoreflect.MessageDescriptor {
	for i := 0; i < ms.Len(); i++ {
		m := ms.Get(i)
		if m.FullName() == name {
			return m
		}
		if x := findMessage(m.Messages(), name); x != nil {
			return x
		}
	}
	return nil
}
