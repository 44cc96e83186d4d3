package protobuf

import (
	"context"
	"fmt"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"github.com/bufbuild/protocompile/reporter"
	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/located"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
)

// MaxDescriptorImports bounds the imports of a FileDescriptorProto FromDescriptorProto
// links.
const MaxDescriptorImports = 256

// FromDescriptorProto makes a Schema of a file given as a FileDescriptorProto (what a
// registry's serialized form and a producer's generated code carry) instead of text.
// Its imports are compiled from resolve (plus the well-known types), with the budgets
// of Parse; type names may be fully qualified (".pkg.Type", as protoc writes them) or
// relative. Findings on such a schema have no line or column. message names the
// record message as for Parse.
func FromDescriptorProto(fdp *descriptorpb.FileDescriptorProto, resolve Resolver, message string) (*Schema, error) {
	name := fdp.GetName()
	if name == "" {
		name = "descriptor.proto"
	}
	names := &fileNames{main: name, display: name}
	deps := fdp.GetDependency()
	if len(deps) > MaxDescriptorImports {
		return nil, &checker.InputError{Span: located.Span{File: name}, Message: fmt.Sprintf("the descriptor imports %d files, over the limit of %d", len(deps), MaxDescriptorImports)}
	}
	var linked linker.Files
	if len(deps) > 0 {
		if resolve == nil {
			return nil, &checker.InputError{Span: located.Span{File: name}, Message: "no resolver was given to read the descriptor's imports; pass a Resolver"}
		}
		var errs []error
		rep := reporter.NewReporter(func(err reporter.ErrorWithPos) error {
			errs = append(errs, err)
			return nil
		}, nil)
		comp := protocompile.Compiler{
			Resolver: protocompile.WithStandardImports(sourceResolver(resolve, names, &compilation{})),
			Reporter: rep,
		}
		files, err := comp.Compile(context.Background(), deps...)
		if err != nil && len(errs) == 0 {
			errs = append(errs, err)
		}
		if len(errs) > 0 {
			return nil, inputErrors(names, errs)
		}
		linked = files
	}
	own := fdp
	if own.GetName() == "" {
		own = clone(fdp)
		own.Name = &name
	}
	fd, err := protodesc.NewFile(own, linked.AsResolver())
	if err != nil {
		return nil, &checker.InputError{Span: located.Span{File: name}, Message: "the descriptor does not link: " + err.Error()}
	}
	lf, err := linker.NewFile(fd, linked)
	if err != nil {
		return nil, &checker.InputError{Span: located.Span{File: name}, Message: "the descriptor does not link: " + err.Error()}
	}
	return newSchema(name, names, lf, message)
}

// DescriptorProto is the schema's file as a FileDescriptorProto, type names fully
// qualified, without source information.
func (s *Schema) DescriptorProto() *descriptorpb.FileDescriptorProto {
	fdp := protodesc.ToFileDescriptorProto(s.file)
	fdp.SourceCodeInfo = nil
	return fdp
}

func clone(fdp *descriptorpb.FileDescriptorProto) *descriptorpb.FileDescriptorProto {
	return proto.Clone(fdp).(*descriptorpb.FileDescriptorProto)
}
