package protobuf

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contractbot/contractbot/checker"
)

// importOf returns the file a compiled schema imports under path.
func importOf(t *testing.T, s *Schema, path string) protoreflect.FileDescriptor {
	t.Helper()
	imps := s.File().Imports()
	for i := 0; i < imps.Len(); i++ {
		if imps.Get(i).Path() == path {
			return imps.Get(i).FileDescriptor
		}
	}
	t.Fatalf("%s does not import %s", s.Path(), path)
	return nil
}

// An import compiled once is handed to the next compilation that reads the same
// content (the same linked file), a changed one is compiled again, and one that
// imports another file of the tree is never shared.
func TestSharedImports(t *testing.T) {
	common := "syntax = \"proto3\";\npackage shared.test;\nimport \"google/protobuf/timestamp.proto\";\nmessage Money { string currency = 1; int64 units = 2; google.protobuf.Timestamp at = 3; }\n"
	user := func(name string) string {
		return "syntax = \"proto3\";\npackage shared.test." + name + ";\nimport \"shared/common.proto\";\nimport \"shared/mid.proto\";\nmessage " + strings.ToUpper(name[:1]) + name[1:] + " { shared.test.Money amount = 1; shared.test.Mid mid = 2; }\n"
	}
	mid := "syntax = \"proto3\";\npackage shared.test;\nimport \"shared/common.proto\";\nmessage Mid { Money m = 1; }\n"
	files := map[string]string{"shared/common.proto": common, "shared/mid.proto": mid, "a.proto": user("a"), "b.proto": user("b")}
	a, err := Parse("a.proto", mapResolver(files), "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse("b.proto", mapResolver(files), "")
	if err != nil {
		t.Fatal(err)
	}
	if importOf(t, a, "shared/common.proto") != importOf(t, b, "shared/common.proto") {
		t.Errorf("common.proto was compiled twice for the same content")
	}
	if importOf(t, a, "shared/mid.proto") == importOf(t, b, "shared/mid.proto") {
		t.Errorf("mid.proto, which imports another file of the tree, was shared")
	}
	if !strings.Contains(strings.Join(b.FieldPaths(), " "), "amount.at") {
		t.Errorf("b's field paths through the shared import: %v", b.FieldPaths())
	}

	files["shared/common.proto"] = strings.Replace(common, "int64 units = 2;", "int64 units = 2; string note = 4;", 1)
	c, err := Parse("a.proto", mapResolver(files), "")
	if err != nil {
		t.Fatal(err)
	}
	if importOf(t, c, "shared/common.proto") == importOf(t, a, "shared/common.proto") || !strings.Contains(strings.Join(c.FieldPaths(), " "), "amount.note") {
		t.Errorf("a changed common.proto was not compiled again: %v", c.FieldPaths())
	}

	// A shared import still counts toward the declaration budget of the file that
	// imports it.
	half := strings.Replace(WideProtoText(MaxDeclarations/2+10), "package w;", "package half;", 1)
	small := "syntax = \"proto3\";\nimport \"half.proto\";\nmessage S { string s = 1; }\n"
	if _, err := Parse("small.proto", mapResolver(map[string]string{"small.proto": small, "half.proto": half}), ""); err != nil {
		t.Fatal(err)
	}
	big := "syntax = \"proto3\";\nimport \"half.proto\";\n" + strings.Replace(WideProtoText(MaxDeclarations/2+10), "syntax = \"proto3\";\n", "", 1)
	_, err = Parse("big.proto", mapResolver(map[string]string{"big.proto": big, "half.proto": half}), "")
	var ie *checker.InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Message, "declarations") {
		t.Errorf("a file and its shared import over the budget: %v", err)
	}
}
