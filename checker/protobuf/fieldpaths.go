package protobuf

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/located"
)

// fieldListing is the record message's fields, walked once: the graph of its message
// types and the listing of its dotted paths, cut at checker.MaxFieldPaths.
type fieldListing struct {
	graph *checker.FieldGraph
	paths []string
	cutAt string
}

func (s *Schema) listing() *fieldListing {
	s.fieldsOnce.Do(func() {
		b := checker.NewGraphBuilder()
		ids := map[protoreflect.FullName]int32{}
		var add func(md protoreflect.MessageDescriptor) int32
		add = func(md protoreflect.MessageDescriptor) int32 {
			if id, ok := ids[md.FullName()]; ok {
				return id
			}
			id := b.Type()
			ids[md.FullName()] = id
			fs := md.Fields()
			for i := 0; i < fs.Len(); i++ {
				fd := fs.Get(i)
				if sub := valueMessage(fd); sub != nil {
					b.Field(id, string(fd.Name()), add(sub))
				} else {
					b.Field(id, string(fd.Name()))
				}
			}
			return id
		}
		if s.record != nil {
			b.Root(add(s.record))
		}
		s.fields.graph = b.Build()
		s.fields.paths, s.fields.cutAt = s.fields.graph.Paths(checker.MaxFieldPaths)
	})
	return &s.fields
}

// FieldGraph returns the record message's fields as a graph of its message types,
// each once: FieldGraph().Has(path) resolves a dotted path however many paths the
// schema has.
func (s *Schema) FieldGraph() *checker.FieldGraph { return s.listing().graph }

// FieldPaths returns the dotted field paths of the record message, at most
// checker.MaxFieldPaths of them, sorted: nested message fields are joined by field name
// (`items.sku`), map values and oneofs are transparent, and recursion stops at the
// first repeat of a message type. FieldPathsCut says when the list is cut.
func (s *Schema) FieldPaths() []string { return s.listing().paths }

// FieldPathsCut returns, when FieldPaths stops at checker.MaxFieldPaths, where and why
// (at the first field left out); nil when the list is whole.
func (s *Schema) FieldPathsCut() *checker.InputError {
	l := s.listing()
	if l.cutAt == "" {
		return nil
	}
	ie := &checker.InputError{Span: located.Span{File: s.names.display, Line: 1, Column: 1}}
	in := ""
	if fd := s.fieldByPath(l.cutAt); fd != nil {
		p := s.locate(fd)
		ie.File, ie.Line, ie.Column = p.file, p.line, p.col
		in = fmt.Sprintf(" (a field of message %s)", fd.Parent().FullName())
	}
	ie.Message = fmt.Sprintf("message %s has more than %d field paths (%s). Only the first %d are listed (on the subject's page and in suggestions); the list stops before %s%s. Consumers' reads and lineage are still checked against the messages.",
		s.record.FullName(), checker.MaxFieldPaths, l.graph.Why(), checker.MaxFieldPaths, l.cutAt, in)
	return ie
}
