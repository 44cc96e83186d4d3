package protobuf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"github.com/bufbuild/protocompile/reporter"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/located"
)

// MaxSchemaBytes is the largest schema file (the checked file or any import) Parse
// accepts.
const MaxSchemaBytes = 8 << 20

// Resolver returns the content of an import path, or an error wrapping fs.ErrNotExist.
// The compiler calls it from several goroutines at once (the imports of a file are
// compiled in parallel), so it must be safe for concurrent use: read shared state
// only, or guard what it writes.
type Resolver func(importPath string) ([]byte, error)

// Schema is one compiled Protobuf file and the record message chosen in it.
type Schema struct {
	path   string     // import path of the file
	names  *fileNames // how files are named in findings and errors
	file   linker.File
	record protoreflect.MessageDescriptor

	fieldsOnce sync.Once
	fields     fieldListing
}

// Path returns the import path the schema was compiled under.
func (s *Schema) Path() string { return s.path }

// File returns the compiled file descriptor.
func (s *Schema) File() protoreflect.FileDescriptor { return s.file }

// Record returns the record message: the one named in Parse, or the file's first.
func (s *Schema) Record() protoreflect.MessageDescriptor { return s.record }

// Parse compiles the file at importPath, reading it and its imports through resolve
// plus the well-known types (google/protobuf/*.proto); nothing else is read. Import
// paths that are absolute or contain ".." are refused before resolve sees them. message
// names the record message, fully qualified or simple; "" means the file's first
// message. Errors are *checker.InputError values (joined with errors.Join when there
// are several), each with file, line and column.
func Parse(importPath string, resolve Resolver, message string) (*Schema, error) {
	return parse(importPath, &fileNames{main: importPath, display: importPath}, resolve, message)
}

// fileNames names files for people: the checked file by its display name (the path
// the user gave), imports by the disk path they were read from when known, else by
// import path. The resolver records disk paths from the compiler's goroutines, so
// disk is guarded by mu.
type fileNames struct {
	main, display string

	mu   sync.Mutex
	disk map[string]string // import path -> disk path
}

// record notes that the import path was read from the disk path.
func (n *fileNames) record(importPath, diskPath string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.disk == nil {
		n.disk = map[string]string{}
	}
	n.disk[importPath] = diskPath
}

func (n *fileNames) name(file string) string {
	if file == n.main || file == "" {
		return n.display
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if d, ok := n.disk[file]; ok {
		return d
	}
	return file
}

func parse(importPath string, names *fileNames, resolve Resolver, message string) (*Schema, error) {
	display := names.display
	if resolve == nil {
		return nil, &checker.InputError{Span: located.Span{File: display}, Message: "no resolver was given to read the schema; pass a Resolver"}
	}
	var errs []error
	rep := reporter.NewReporter(func(err reporter.ErrorWithPos) error {
		errs = append(errs, err)
		return nil // keep going: report every error, not only the first
	}, nil)
	shared := &compilation{}
	comp := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(sourceResolver(resolve, names, shared)),
		SourceInfoMode: protocompile.SourceInfoStandard,
		Reporter:       rep,
	}
	files, err := comp.Compile(context.Background(), importPath)
	if err != nil && !errors.Is(err, reporter.ErrInvalidSource) {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, inputErrors(names, errs)
	}
	if len(files) != 1 {
		return nil, &checker.InputError{Span: located.Span{File: display}, Message: "the compiler returned no file"}
	}
	shared.keep(files[0])
	return newSchema(importPath, names, files[0], message)
}

// newSchema is the Schema of a linked file, its record message named by message (see
// Parse); files in Editions syntax are refused.
func newSchema(importPath string, names *fileNames, file linker.File, message string) (*Schema, error) {
	s := &Schema{path: importPath, names: names, file: file}
	if err := rejectEditions(s); err != nil {
		return nil, err
	}
	rec, err := s.findRecord(message)
	if err != nil {
		return nil, err
	}
	s.record = rec
	return s, nil
}

// sourceResolver adapts a Resolver to protocompile, enforcing MaxSchemaBytes per file
// and MaxDeclarations over the files of one compilation (files named by names), and
// hands the compiler an import another compilation linked when its files read the
// same (imports.go).
func sourceResolver(resolve Resolver, names *fileNames, shared *compilation) protocompile.Resolver {
	budget := &declarationBudget{}
	return protocompile.ResolverFunc(func(name string) (protocompile.SearchResult, error) {
		if err := CheckImportPath(name); err != nil {
			return protocompile.SearchResult{}, err
		}
		data, err := resolve(name)
		if err != nil {
			return protocompile.SearchResult{}, err
		}
		if len(data) > MaxSchemaBytes {
			return protocompile.SearchResult{}, fmt.Errorf("%s is %d bytes, over the limit of %d bytes (MaxSchemaBytes); split the schema into smaller files", name, len(data), MaxSchemaBytes)
		}
		if err := budget.take(names.name(name), data); err != nil {
			return protocompile.SearchResult{}, err
		}
		if name != names.main {
			if res, ok := shared.shared(name, data); ok {
				return res, nil
			}
		}
		return protocompile.SearchResult{Source: bytes.NewReader(data)}, nil
	})
}

// inputErrors turns compiler errors into *checker.InputError values.
func inputErrors(names *fileNames, errs []error) error {
	out := make([]error, 0, len(errs))
	seen := map[string]bool{}
	for _, err := range errs {
		ie := &checker.InputError{Span: located.Span{File: names.display}, Message: err.Error()}
		var ewp reporter.ErrorWithPos
		var own *checker.InputError
		if errors.As(err, &own) {
			ie = own // already located (the declaration budget)
		} else if errors.As(err, &ewp) {
			pos := ewp.GetPosition()
			ie.File = names.name(pos.Filename)
			ie.Line, ie.Column = pos.Line, pos.Col
			ie.Message = ewp.Unwrap().Error()
		}
		if errors.Is(err, fs.ErrNotExist) {
			ie.Message = strings.TrimSuffix(ie.Message, ".") + "; add the file to the contract tree or fix the import path"
		}
		if k := ie.Error(); !seen[k] {
			seen[k] = true
			out = append(out, ie)
		}
	}
	// Files compile in parallel: order the errors by place so output is stable.
	sort.SliceStable(out, func(i, j int) bool {
		var a, b *checker.InputError // every error here is one (built above)
		errors.As(out[i], &a)
		errors.As(out[j], &b)
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	out = oneErrorPerCycle(out)
	if len(out) == 1 {
		return out[0]
	}
	return errors.Join(out...)
}

// oneErrorPerCycle keeps the first (by place) of the errors that report one import
// cycle: files compile in parallel, and when two of a cycle's files reach the import
// that closes it at once, each reports the cycle from its side.
func oneErrorPerCycle(errs []error) []error {
	seen := map[string]bool{}
	return slices.DeleteFunc(errs, func(err error) bool {
		_, cycle, ok := strings.Cut(err.Error(), "cycle found in imports:")
		if !ok {
			return false
		}
		var files []string
		for _, f := range strings.Split(cycle, "->") {
			files = append(files, strings.Trim(strings.TrimSpace(f), `"`))
		}
		slices.Sort(files)
		key := strings.Join(slices.Compact(files), "\x00")
		if seen[key] {
			return true
		}
		seen[key] = true
		return false
	})
}

// rejectEditions refuses files written with `edition = ...`: the registry semantics
// implemented here are defined for proto2 and proto3 only.
func rejectEditions(s *Schema) error {
	check := func(f protoreflect.FileDescriptor) error {
		if f.Syntax() != protoreflect.Editions {
			return nil
		}
		ie := &checker.InputError{Span: located.Span{File: s.names.name(f.Path()), Line: 1, Column: 1},
			Message: "Protobuf editions are not supported; write the file with syntax = \"proto3\" or \"proto2\""}
		if loc, ok := location(f, []int32{12}); ok { // FileDescriptorProto.edition = 14, syntax = 12
			ie.Line, ie.Column = loc[0], loc[1]
		}
		if loc, ok := location(f, []int32{14}); ok {
			ie.Line, ie.Column = loc[0], loc[1]
		}
		return ie
	}
	if err := check(s.file); err != nil {
		return err
	}
	imps := s.file.Imports()
	for i := 0; i < imps.Len(); i++ {
		if err := check(imps.Get(i).FileDescriptor); err != nil {
			return err
		}
	}
	return nil
}

func location(f protoreflect.FileDescriptor, path protoreflect.SourcePath) ([2]int, bool) {
	loc := f.SourceLocations().ByPath(path)
	if loc.Path == nil && loc.StartLine == 0 && loc.StartColumn == 0 && loc.EndLine == 0 {
		return [2]int{}, false
	}
	return [2]int{loc.StartLine + 1, loc.StartColumn + 1}, true
}

func (s *Schema) findRecord(name string) (protoreflect.MessageDescriptor, error) {
	msgs := s.file.Messages()
	if name == "" {
		if msgs.Len() == 0 {
			return nil, &checker.InputError{Span: located.Span{File: s.names.display, Line: 1, Column: 1},
				Message: "the file declares no message; declare the record message in it"}
		}
		return msgs.Get(0), nil
	}
	name = strings.TrimPrefix(name, ".")
	if d := s.file.FindDescriptorByName(protoreflect.FullName(name)); d != nil {
		if md, ok := d.(protoreflect.MessageDescriptor); ok {
			return md, nil
		}
	}
	if pkg := s.file.Package(); pkg != "" {
		if d := s.file.FindDescriptorByName(pkg.Append(protoreflect.Name(name))); d != nil {
			if md, ok := d.(protoreflect.MessageDescriptor); ok {
				return md, nil
			}
		}
	}
	var found protoreflect.MessageDescriptor
	walkMessages(msgs, func(md protoreflect.MessageDescriptor) {
		if found == nil && string(md.Name()) == name {
			found = md
		}
	})
	if found != nil {
		return found, nil
	}
	var names []string
	walkMessages(msgs, func(md protoreflect.MessageDescriptor) {
		if !md.IsMapEntry() {
			names = append(names, string(md.FullName()))
		}
	})
	return nil, &checker.InputError{Span: located.Span{File: s.names.display, Line: 1, Column: 1},
		Message: fmt.Sprintf("message %q is not declared in the file; name one of: %s", name, strings.Join(names, ", "))}
}

func walkMessages(msgs protoreflect.MessageDescriptors, fn func(protoreflect.MessageDescriptor)) {
	for i := 0; i < msgs.Len(); i++ {
		md := msgs.Get(i)
		fn(md)
		walkMessages(md.Messages(), fn)
	}
}

// valueMessage returns the message a field holds (the value of a map), or nil.
func valueMessage(fd protoreflect.FieldDescriptor) protoreflect.MessageDescriptor {
	if fd.IsMap() {
		fd = fd.MapValue()
	}
	if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
		return fd.Message()
	}
	return nil
}

// fieldByPath finds the field named by a dotted path under the record message.
func (s *Schema) fieldByPath(path string) protoreflect.FieldDescriptor {
	md := s.record
	parts := strings.Split(path, ".")
	for i, part := range parts {
		if md == nil {
			return nil
		}
		fd := md.Fields().ByName(protoreflect.Name(part))
		if fd == nil {
			return nil
		}
		if i == len(parts)-1 {
			return fd
		}
		md = valueMessage(fd)
	}
	return nil
}

// Pos returns the 1-based line and column of the field named by a dotted path.
func (s *Schema) Pos(fieldPath string) (line, col int, ok bool) {
	fd := s.fieldByPath(fieldPath)
	if fd == nil {
		return 0, 0, false
	}
	l := s.locate(fd)
	if l.line == 0 {
		return 0, 0, false
	}
	return l.line, l.col, true
}

// Imports returns the import paths the file depends on directly, leaving out the
// well-known types (google/protobuf/...). In registry terms they are the schema's
// references.
func (s *Schema) Imports() []string {
	var out []string
	imps := s.file.Imports()
	for i := 0; i < imps.Len(); i++ {
		p := imps.Get(i).Path()
		if isWellKnown(p) {
			continue
		}
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func isWellKnown(path string) bool { return strings.HasPrefix(path, "google/protobuf/") }

// pos is a place in a schema file.
type pos struct {
	file      string
	line, col int
}

// locateSub returns where the part of d named by a source path suffix (say, a
// field's type) is written, falling back to d itself.
func (s *Schema) locateSub(d protoreflect.Descriptor, suffix []int32) pos {
	if len(suffix) > 0 && d != nil && d.ParentFile() != nil {
		f := d.ParentFile()
		loc := f.SourceLocations().ByDescriptor(d)
		if loc.Path != nil {
			path := append(append(protoreflect.SourcePath{}, loc.Path...), suffix...)
			if l, ok := location(f, path); ok {
				return pos{file: s.names.name(f.Path()), line: l[0], col: l[1]}
			}
		}
	}
	return s.locate(d)
}

// locate returns where a descriptor is declared: its file (the display name for the
// schema's own file) and 1-based line and column; zero when unknown.
func (s *Schema) locate(d protoreflect.Descriptor) pos {
	if d == nil {
		return pos{}
	}
	f := d.ParentFile()
	if f == nil {
		return pos{}
	}
	p := pos{file: s.names.name(f.Path())}
	if _, ok := d.(protoreflect.FileDescriptor); ok {
		p.line, p.col = 1, 1
		for _, path := range []protoreflect.SourcePath{{2}, {12}} { // package, syntax
			if l, ok := location(f, path); ok {
				p.line, p.col = l[0], l[1]
				break
			}
		}
		return p
	}
	loc := f.SourceLocations().ByDescriptor(d)
	if loc.StartLine == 0 && loc.StartColumn == 0 && loc.EndLine == 0 && loc.Path == nil {
		if owner := mapFieldOf(d); owner != nil {
			return s.locate(owner) // a map entry's key or value: the map field
		}
		return p
	}
	p.line, p.col = loc.StartLine+1, loc.StartColumn+1
	return p
}

// mapFieldOf returns, for a field or message of a synthetic map entry, the map field
// that declares it; nil otherwise.
func mapFieldOf(d protoreflect.Descriptor) protoreflect.Descriptor {
	entry, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		if fd, isField := d.(protoreflect.FieldDescriptor); isField {
			entry, ok = fd.Parent().(protoreflect.MessageDescriptor)
		}
	}
	if !ok || entry == nil || !entry.IsMapEntry() {
		return nil
	}
	parent, ok := entry.Parent().(protoreflect.MessageDescriptor)
	if !ok {
		return nil
	}
	fs := parent.Fields()
	for i := 0; i < fs.Len(); i++ {
		if fs.Get(i).Message() != nil && fs.Get(i).Message().FullName() == entry.FullName() {
			return fs.Get(i)
		}
	}
	return nil
}
