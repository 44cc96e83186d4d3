package openlineage

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The published schema files (spec/README.md says where they come from), each
// registered under its $id so that $refs between them resolve offline.
//
//go:embed spec/*.json
var specFS embed.FS

// SpecURL and ColumnLineageURL are the $ids of the embedded schema files.
const (
	SpecURL          = "https://openlineage.io/spec/2-0-2/OpenLineage.json"
	ColumnLineageURL = "https://openlineage.io/spec/facets/1-1-0/ColumnLineageDatasetFacet.json"
	runEventURL      = "urn:contractbot:openlineage:RunEvent"
)

var specFiles = map[string]string{
	SpecURL:          "spec/OpenLineage.json",
	ColumnLineageURL: "spec/ColumnLineageDatasetFacet.json",
	runEventURL:      "spec/RunEvent.json",
}

// compileSpec compiles the schema at url (one of specFiles, with a fragment if need
// be) with every embedded file registered and formats asserted. Nothing is loaded
// from the network: a $ref to anything else fails to compile.
func compileSpec(url string) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.UseLoader(offline{})
	for id, name := range specFiles {
		data, err := specFS.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read the embedded schema %s: %w", name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("parse the embedded schema %s: %w", name, err)
		}
		if err := c.AddResource(id, doc); err != nil {
			return nil, fmt.Errorf("register the embedded schema %s: %w", name, err)
		}
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compile OpenLineage's schema %s: %w", url, err)
	}
	return sch, nil
}

// offline refuses every URL: the schemas are all registered beforehand.
type offline struct{}

func (offline) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is not embedded, and schemas are never fetched", url)
}

var runEventSchema = sync.OnceValues(func() (*jsonschema.Schema, error) { return compileSpec(runEventURL) })

// SchemaError says where an event breaks OpenLineage's JSON Schema and why: one
// Problem per failing keyword, in the order of their place in the event.
type SchemaError struct {
	Problems []Problem
}

// Problem is one place where an event breaks the schema.
type Problem struct {
	// Pointer is the JSON pointer (RFC 6901) of the value in the event ("" is the
	// whole event).
	Pointer string
	// Reason is the schema's complaint, e.g. "missing property 'runId'".
	Reason string
}

// printer words the schema's complaints in English.
var printer = message.NewPrinter(language.English)

// maxProblems bounds the problems a SchemaError lists.
const maxProblems = 5

func (e *SchemaError) Error() string {
	parts := make([]string, 0, len(e.Problems))
	for _, p := range e.Problems {
		at := p.Pointer
		if at == "" {
			at = `"" (the event itself)`
		}
		parts = append(parts, "at "+at+": "+p.Reason)
	}
	return "the event does not follow OpenLineage's JSON Schema for a RunEvent (spec 2-0-2): " + strings.Join(parts, "; ")
}

// CheckSchema validates one event (JSON text) against OpenLineage's published
// RunEvent schema, with the columnLineage facet of its datasets checked against its
// facet schema. A *SchemaError says where and why it does not follow
// them; other errors are JSON that does not parse.
func CheckSchema(data []byte) error {
	sch, err := runEventSchema()
	if err != nil {
		return err
	}
	return validate(sch, data)
}

func validate(sch *jsonschema.Schema, data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	err = sch.Validate(doc)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var ps []Problem
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			ps = append(ps, Problem{Pointer: pointer(e.InstanceLocation), Reason: e.ErrorKind.LocalizedString(printer)})
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.SortStableFunc(ps, func(a, b Problem) int { return strings.Compare(a.Pointer, b.Pointer) })
	ps = slices.Compact(ps)
	if len(ps) > maxProblems {
		ps = ps[:maxProblems]
	}
	return &SchemaError{Problems: ps}
}

// pointer writes instance location tokens as an RFC 6901 JSON pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}
