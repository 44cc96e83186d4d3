package protobuf

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

// deepProto is issue 13's input: messages reusing each other levels deep, the top one
// first (2^(levels+1)-1 field paths).
func deepProto(levels int, leaf string) string {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage hostile.v1;\n")
	for i := levels; i >= 1; i-- {
		fmt.Fprintf(&b, "message M%d { M%d a = 1; M%d b = 2; }\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, "message M0 { %s x = 1; }\n", leaf)
	return b.String()
}

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestDeepReuseIsBounded(t *testing.T) {
	old, next := mustParse(t, deepProto(22, "int32")), mustParse(t, deepProto(22, "string"))
	var changes []checker.Change
	var res *checker.Result
	bytes := allocated(func() {
		changes = Diff(old, next)
		res = Check([]*Schema{old}, next, checker.Full, RulesWireJSON)
	})
	if bytes > 64<<20 {
		t.Errorf("Diff and Check allocated %d MB, over 64 MB", bytes>>20)
	}
	// The leaf's retyping is listed under the first MaxChanges paths; one more change
	// counts the other 2^22 - MaxChanges and carries their effect.
	if len(changes) != checker.MaxChanges+1 {
		t.Fatalf("%d changes, want %d", len(changes), checker.MaxChanges+1)
	}
	cut := changes[0]
	if cut.Kind != checker.ChangesCut || cut.Path != checker.WholeSubject || cut.Effect != checker.Breaks ||
		cut.New != fmt.Sprint(1<<22-checker.MaxChanges) || cut.Line != 3 || cut.File != "schema.proto" {
		t.Errorf("the cut is not counted and located at the record message: %+v", cut)
	}
	for _, c := range changes[1:] {
		if c.Kind != checker.TypeChanged || !strings.HasSuffix(c.Path, ".x") || strings.Count(c.Path, ".") != 22 ||
			c.Message != fmt.Sprintf("field \"%s\" changed type from int32 to string.", c.Path) {
			t.Fatalf("a listed change: %+v", c)
		}
	}
	// The registry check compares each message pair once: one finding per rule and place.
	if res.Compatible || len(res.Findings) > 10 {
		t.Errorf("Check: compatible %v, %d findings", res.Compatible, len(res.Findings))
	}
	// The listing stops, and says where; a deep path still resolves.
	if got := len(next.FieldPaths()); got != checker.MaxFieldPaths {
		t.Errorf("%d field paths listed", got)
	}
	if ie := next.FieldPathsCut(); ie == nil || ie.Line < 3 || ie.File != "schema.proto" {
		t.Errorf("the cut listing is not located: %+v", ie)
	}
	if !next.FieldGraph().Has(strings.Repeat("b.", 22)+"x") || next.FieldGraph().Has(strings.Repeat("b.", 21)+"x") {
		t.Error("FieldGraph does not resolve the deepest paths")
	}
}

// Changes inside a message reused at several places are listed under each path, with
// the paths in their messages; a rename of the enclosing field shows in the old path.
func TestDiffListsReusedMessagesUnderEachPath(t *testing.T) {
	const old = `syntax = "proto3";
message Order { Money total = 1; Money tax = 2; Item item = 3; }
message Item { Money price = 1; }
message Money { int32 units = 1; string currency = 2; }
`
	const next = `syntax = "proto3";
message Order { Money total = 1; Money vat = 2; Item item = 3; }
message Item { Money price = 1; }
message Money { int64 units = 1; }
`
	got := renderChanges(Diff(mustParse(t, old), mustParse(t, next)))
	want := `removed breaking item.price.currency 4:34
promoted meaning item.price.units 4:17
removed breaking tax.currency 4:34
removed breaking total.currency 4:34
promoted meaning total.units 4:17
renamed breaking vat (from tax) 2:34
promoted meaning vat.units 4:17
`
	if got != want {
		t.Errorf("Diff:\n%s\nwant:\n%s", got, want)
	}
}

// A file with more declarations than MaxDeclarations is refused before it is
// compiled, at the first declaration past the limit; so is a file whose imports bring
// the total over it.
func TestDeclarationBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\n// a comment; with { braces\nmessage Wide {\n")
	for i := 1; i <= MaxDeclarations; i++ {
		fmt.Fprintf(&b, "  string f%d = %d [json_name = \"a;b{\"];\n", i, i+20000)
	}
	b.WriteString("}\n")
	var ie *checker.InputError
	bytes := allocated(func() {
		_, err := Parse("wide.proto", mapResolver(map[string]string{"wide.proto": b.String()}), "")
		if !errors.As(err, &ie) {
			t.Fatalf("Parse: %v", err)
		}
	})
	// syntax (1), message (2), fields from line 4: the first declaration past the
	// limit is field MaxDeclarations-1, on line MaxDeclarations+2.
	if ie.File != "wide.proto" || ie.Line != MaxDeclarations+2 || ie.Column != 3 || !strings.Contains(ie.Message, fmt.Sprintf("more than %d declarations", MaxDeclarations)) {
		t.Errorf("refusal: %+v", ie)
	}
	if bytes > 16<<20 {
		t.Errorf("refusing allocated %d MB", bytes>>20)
	}

	half := strings.Replace(WideProtoText(MaxDeclarations/2+10), "package w;", "package a;", 1)
	main := "syntax = \"proto3\";\nimport \"a.proto\";\n" + strings.Replace(WideProtoText(MaxDeclarations/2+10), "syntax = \"proto3\";\n", "", 1)
	_, err := Parse("main.proto", mapResolver(map[string]string{"main.proto": main, "a.proto": half}), "")
	if !errors.As(err, &ie) || !strings.Contains(ie.Message, "declarations") {
		t.Errorf("imports over the budget: %v", err)
	}
}

// WideProtoText is a file of package w with one message of n string fields.
func WideProtoText(n int) string {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage w;\nmessage Wide" + fmt.Sprint(n) + " {\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  string f%d = %d;\n", i, i+20000)
	}
	b.WriteString("}\n")
	return b.String()
}

// A line longer than MaxLineBytes is refused before it is compiled, at its start, with
// a message saying to break it (issue 13: 29,000 fields on one line ran past 120 s);
// the canonical form refuses it too.
func TestLongLineIsRefused(t *testing.T) {
	for name, body := range map[string]string{
		"fields":      "message Wide { " + strings.Repeat("string f = 1; ", 29000) + "}",
		"enum values": "enum E { " + strings.Repeat("V = 0; ", 10000) + "}",
	} {
		t.Run(name, func(t *testing.T) {
			text := "syntax = \"proto3\";\npackage w;\n" + body + "\n"
			var ie *checker.InputError
			bytes := allocated(func() {
				_, err := Parse("one.proto", mapResolver(map[string]string{"one.proto": text}), "")
				if !errors.As(err, &ie) {
					t.Fatalf("Parse: %v", err)
				}
			})
			if ie.File != "one.proto" || ie.Line != 3 || ie.Column != 1 || !strings.Contains(ie.Message, fmt.Sprintf("over the limit of %d bytes", MaxLineBytes)) || !strings.Contains(ie.Message, "break it") {
				t.Errorf("refusal: %+v", ie)
			}
			if bytes > 4<<20 {
				t.Errorf("refusing allocated %d MB", bytes>>20)
			}
			if _, err := (Engine{}).Canonical([]byte(text)); err == nil || !strings.Contains(err.Error(), "break it") {
				t.Errorf("Canonical: %v", err)
			}
		})
	}
	ok := "syntax = \"proto3\";\npackage w;\nmessage M { " + strings.Repeat("string f = 1; ", MaxLineBytes/len("string f = 1; ")-1) + "}\n"
	if err := longLine("ok.proto", []byte(ok)); err != nil {
		t.Errorf("a line under the limit: %v", err)
	}
}
