package jsontext

import (
	"errors"
	"strings"
	"testing"
)

// at returns the offset of the n-th (0-based) occurrence of sub in s, failing when
// there is none, so expected offsets are found in the text rather than hard-coded.
func at(t *testing.T, s, sub string, n int) int {
	t.Helper()
	off := 0
	for i := 0; ; i++ {
		j := strings.Index(s[off:], sub)
		if j < 0 {
			t.Fatalf("%q has no occurrence %d of %q", s, n, sub)
		}
		if i == n {
			return off + j
		}
		off += j + len(sub)
	}
}

func TestOffsetsOfKeysAndValues(t *testing.T) {
	text := "{\n  \"name\": \"x\",\n  \"fields\": [ {\"a\": -1.5e3}, true, null ]\n}"
	root, err := Parse([]byte(text), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if root.Kind != Object || root.Off != 0 || len(root.Members) != 2 {
		t.Fatalf("root = %+v, want an object at 0 with 2 members", root)
	}
	name := root.Members[0]
	if name.Key != "name" || name.KeyOff != at(t, text, `"name"`, 0) || name.Val.Off != at(t, text, `"x"`, 0) || name.Val.Str != "x" {
		t.Errorf("member name = {%q %d %+v}", name.Key, name.KeyOff, name.Val)
	}
	fields := root.Get("fields")
	if fields == nil || fields.Kind != Array || fields.Off != at(t, text, "[", 0) || len(fields.Elems) != 3 {
		t.Fatalf("fields = %+v", fields)
	}
	num := fields.Elems[0].Get("a")
	if num == nil || num.Kind != Number || num.Str != "-1.5e3" || num.Off != at(t, text, "-1.5e3", 0) {
		t.Errorf("a = %+v, want the number -1.5e3 at its offset", num)
	}
	if b := fields.Elems[1]; b.Kind != Bool || b.Str != "true" || b.Off != at(t, text, "true", 0) {
		t.Errorf("elem 1 = %+v", b)
	}
	if n := fields.Elems[2]; n.Kind != Null || n.Off != at(t, text, "null", 0) {
		t.Errorf("elem 2 = %+v", n)
	}
	if root.Get("missing") != nil || fields.Get("a") != nil || (*Node)(nil).Get("a") != nil {
		t.Error("Get found a member that does not exist")
	}
}

func TestEscapesDecoded(t *testing.T) {
	root, err := Parse([]byte(`{"k\u00e9\n": "a\"b\\c\/\ud83d\ude00"}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := root.Get("ké\n"); got == nil || got.Str != "a\"b\\c/😀" {
		t.Errorf("decoded = %+v", root.Members)
	}
}

func TestDeepNestingRefusedWithHint(t *testing.T) {
	const hint = "define the nested part once and refer to it"
	ok := strings.Repeat("[", MaxNestingDepth) + strings.Repeat("]", MaxNestingDepth)
	if _, err := Parse([]byte(ok), Options{DepthHint: hint}); err != nil {
		t.Fatalf("nesting of exactly MaxNestingDepth refused: %v", err)
	}
	deep := strings.Repeat(`{"a":`, MaxNestingDepth+1) + "1" + strings.Repeat("}", MaxNestingDepth+1)
	for _, tc := range []struct{ hint, want string }{
		{hint, "schema nests deeper than 256 levels; " + hint},
		{"", "schema nests deeper than 256 levels; flatten it"},
	} {
		_, err := Parse([]byte(deep), Options{DepthHint: tc.hint})
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("error %v is not a *SyntaxError", err)
		}
		if se.Msg != tc.want || se.Off != at(t, deep, "{", MaxNestingDepth) {
			t.Errorf("error = %q at %d, want %q at the %d-th '{'", se.Msg, se.Off, tc.want, MaxNestingDepth+1)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, tc := range []struct{ text, errAt, want string }{
		{`{"a": 1} x`, "x", `unexpected 'x' after the schema`},
		{"[1]\n\n}", "}", "unexpected '}' after the schema"},
		{`{"a": 1, "a": 2}`, `"a": 2`, `duplicate member "a"`},
		{`{'a': 1}`, "'", "expected a quoted member name"},
		{`[1,]`, "]", "expected a JSON value"},
		{`{"a" 1}`, "1", "expected ':'"},
		{`"abc`, `"abc`, "string is not closed"},
		{`[01x]`, "x", "expected ',' or ']'"},
		{`[tru]`, "tru", "strings need double quotes"},
		{"\"a\tb\"", "\t", "control character"},
	} {
		_, err := Parse([]byte(tc.text), Options{})
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, want a *SyntaxError", tc.text, err)
			continue
		}
		if want := strings.Index(tc.text, tc.errAt); se.Off != want || !strings.Contains(se.Msg, tc.want) {
			t.Errorf("Parse(%q) = %q at %d, want %q at %d", tc.text, se.Msg, se.Off, tc.want, want)
		}
	}
	if _, err := Parse([]byte(" {} \n\t"), Options{}); err != nil {
		t.Errorf("white space around the value refused: %v", err)
	}
}

func TestResolvePointer(t *testing.T) {
	text := `{"a/b": {"m~n": [10, {"x": 1}]}, "c": 2}`
	root, err := Parse([]byte(text), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ptr  string
		kind Kind
		off  int
		ok   bool
	}{
		{"", Object, 0, true},
		{"/a~1b", Object, at(t, text, `"a/b"`, 0), true},
		{"/a~1b/m~0n", Array, at(t, text, `"m~n"`, 0), true},
		{"/a~1b/m~0n/0", Number, at(t, text, "10", 0), true},
		{"/a~1b/m~0n/1/x", Number, at(t, text, `"x"`, 0), true},
		{"/a~1b/m~0n/2", Array, at(t, text, `"m~n"`, 0), false},  // past the array: its key
		{"/a/b", Object, 0, false},                               // / unescaped: no member "a"
		{"/c/deeper", Number, at(t, text, `"c"`, 0), false},      // into a number
		{"/a~1b/m~0n/-1", Array, at(t, text, `"m~n"`, 0), false}, // negative index
	} {
		n, off, ok := ResolvePointer(root, tc.ptr)
		if n == nil || n.Kind != tc.kind || off != tc.off || ok != tc.ok {
			t.Errorf("ResolvePointer(%q) = %+v, %d, %v; want kind %d, %d, %v", tc.ptr, n, off, ok, tc.kind, tc.off, tc.ok)
		}
	}
	if n, _, ok := ResolvePointer(nil, "/a"); n != nil || ok {
		t.Error("ResolvePointer(nil) found something")
	}
	for _, key := range []string{"plain", "a/b", "m~n", "~/~1"} {
		ptr := "/" + EscapePointerToken(key)
		doc, err := Parse([]byte(`{"`+key+`": 7}`), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if n, off, ok := ResolvePointer(doc, ptr); !ok || n.Str != "7" || off != 1 {
			t.Errorf("key %q escaped as %q does not resolve back: %+v %d %v", key, ptr, n, off, ok)
		}
	}
}

func TestLineIndexCountsBytes(t *testing.T) {
	text := "{\n  \"é\": \"日本\",\n\"z\": 1}"
	idx := NewLineIndex([]byte(text))
	for _, tc := range []struct {
		sub       string
		line, col int
	}{
		{"{", 1, 1},
		{`"é"`, 2, 3},
		{`"日本"`, 2, 3 + len(`"é": `)}, // é is two bytes: columns count bytes
		{`"z"`, 3, 1},
		{"}", 3, 7},
	} {
		off := at(t, text, tc.sub, 0)
		if line, col := idx.Pos(off); line != tc.line || col != tc.col {
			t.Errorf("Pos(%d) for %q = %d:%d, want %d:%d", off, tc.sub, line, col, tc.line, tc.col)
		}
	}
	if line, col := idx.Pos(len(text)); line != 3 || col != len(`"z": 1}`)+1 {
		t.Errorf("Pos(end) = %d:%d", line, col)
	}
}
