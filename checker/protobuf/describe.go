package protobuf

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contractbot/contractbot/checker"
)

// DescribeFields lists the record message's fields in declaration order, nested
// message fields after their parent (map values and oneofs are transparent, a message
// already being expanded is not expanded again), at most checker.MaxFieldPaths.
func (s *Schema) DescribeFields() []checker.FieldInfo {
	if s.record == nil {
		return nil
	}
	var out []checker.FieldInfo
	onPath := map[protoreflect.FullName]bool{}
	var walk func(md protoreflect.MessageDescriptor, prefix string, depth int)
	walk = func(md protoreflect.MessageDescriptor, prefix string, depth int) {
		if onPath[md.FullName()] {
			return
		}
		onPath[md.FullName()] = true
		defer delete(onPath, md.FullName())
		fs := md.Fields()
		for i := 0; i < fs.Len() && len(out) < checker.MaxFieldPaths; i++ {
			fd := fs.Get(i)
			path := string(fd.Name())
			if prefix != "" {
				path = prefix + "." + path
			}
			fi := checker.FieldInfo{Path: path, Depth: depth, Type: typeName(fd), Doc: s.comment(fd),
				Nullable: fd.HasPresence() && !fd.IsList() && !fd.IsMap()}
			if fd.IsList() {
				fi.Type = "repeated " + fi.Type
			}
			if fd.HasDefault() {
				fi.Default, fi.HasDefault = fmt.Sprintf("%v", defaultOf(fd)), true
			}
			out = append(out, fi)
			if sub := valueMessage(fd); sub != nil {
				walk(sub, path, depth+1)
			}
		}
	}
	walk(s.record, "", 0)
	return out
}
