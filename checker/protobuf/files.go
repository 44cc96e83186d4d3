package protobuf

import "google.golang.org/protobuf/reflect/protoreflect"

// Source paths inside a FileDescriptorProto.
var (
	filePackagePath = []int32{2}
)

var fileSamePackage = rule{
	id:      "FILE_SAME_PACKAGE",
	purpose: "A file keeps its package, since the package is part of every type's full name.",
	file: func(r *report, prev, cur protoreflect.FileDescriptor) {
		if prev.Package() != cur.Package() {
			r.add(cur, prev, filePackagePath, "File package changed from %q to %q.", prev.Package(), cur.Package())
		}
	},
}

// jsonFormatAllowed reports whether an element is guaranteed to have a JSON form: true
// for proto3 files, false (legacy best effort) for proto2.
func jsonFormatAllowed(d protoreflect.Descriptor) bool {
	return d.ParentFile().Syntax() == protoreflect.Proto3
}
