package synth

import (
	"fmt"
	"sort"
	"strings"
)

// Hostile schemas: valid schemas written to make a naive walk over their types cost
// exponential time or memory (issue 13). The budget tests and the measurements in
// docs/performance.md use them.

// DeepProto is a Protobuf file whose messages reuse each other levels deep, two
// fields per level: `message Mi { M(i-1) a = 1; M(i-1) b = 2; }`, with M0 holding one
// field x of type leaf (int32, string, ...). Its record message, hostile.v1.M<levels>,
// comes first, so it is also the file's default record; it has 2^(levels+1)-1 field
// paths. At 22 levels it is 935 bytes.
func DeepProto(levels int, leaf string) string {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage hostile.v1;\n")
	for i := levels; i >= 1; i-- {
		fmt.Fprintf(&b, "message M%d { M%d a = 1; M%d b = 2; }\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, "message M0 { %s x = 1; }\n", leaf)
	return b.String()
}

// ReusedAvro is an Avro schema of records R<levels> ... R0, each R(i) with fields a,
// b and c of type R(i-1) (referred to by name, as Avro allows), R0 with one field x of
// type leaf: 3^levels field paths at the bottom level alone. At 20 levels it is about
// 3 KB.
func ReusedAvro(levels int, leaf string) string {
	// Written innermost first, so every name is defined before it is used.
	var b strings.Builder
	typ := fmt.Sprintf(`{"type": "record", "name": "R0", "fields": [{"name": "x", "type": %q}]}`, leaf)
	for i := 1; i <= levels; i++ {
		typ = fmt.Sprintf(`{"type": "record", "name": "R%d", "fields": [{"name": "a", "type": %s}, {"name": "b", "type": "R%d"}, {"name": "c", "type": "R%d"}]}`, i, typ, i-1, i-1)
	}
	fmt.Fprintf(&b, `{"type": "record", "name": "Hostile", "namespace": "hostile.v1", "fields": [{"name": "root", "type": %s}]}`, typ)
	b.WriteString("\n")
	return b.String()
}

// WideProto is a Protobuf file with one message of n fields f1..fn of type typ,
// numbered from 1 around the range 19000-19999 that Protobuf reserves.
func WideProto(n int, typ string) string {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage hostile.v1;\nmessage Wide {\n")
	for i := 1; i <= n; i++ {
		num := i
		if num >= 19000 {
			num += 1000
		}
		fmt.Fprintf(&b, "  %s f%d = %d;\n", typ, i, num)
	}
	b.WriteString("}\n")
	return b.String()
}

// HostileSchemas names the hostile inputs cmd/synthrepo prints (-hostile NAME).
var HostileSchemas = map[string]func() string{
	"deep-proto":             func() string { return DeepProto(22, "int32") },
	"deep-proto-string":      func() string { return DeepProto(22, "string") },
	"reused-avro":            func() string { return ReusedAvro(20, "int") },
	"reused-avro-string":     func() string { return ReusedAvro(20, "string") },
	"wide-proto-1":           func() string { return WideProto(1, "int32") },
	"wide-proto-20k":         func() string { return WideProto(20_000, "int32") },
	"wide-proto-20k-string":  func() string { return WideProto(20_000, "string") },
	"wide-proto-29k":         func() string { return WideProto(29_000, "int32") },
	"wide-proto-29k-string":  func() string { return WideProto(29_000, "string") },
	"wide-proto-100k":        func() string { return WideProto(100_000, "int32") },
	"wide-proto-100k-string": func() string { return WideProto(100_000, "string") },
}

// HostileNames lists the names of HostileSchemas, sorted.
func HostileNames() []string {
	out := make([]string, 0, len(HostileSchemas))
	for n := range HostileSchemas {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
