package avro

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker/jsontext"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files under testdata")

// The canonical forms below are what Avro Java's Schema.toString prints for each
// input (the text Confluent's AvroSchema.canonicalString stores).
func TestCanonicalMatchesAvroJava(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"key order and white space",
			`{ "fields": [ {"type": "string", "name": "id", "doc": "the id"} ],
			   "name": "acme.orders.Order", "type": "record" }`,
			`{"type":"record","name":"Order","namespace":"acme.orders","fields":[{"name":"id","type":"string","doc":"the id"}]}`},
		{"namespaces and references",
			`{"type":"record","name":"A","namespace":"x","fields":[
			  {"name":"b","type":{"type":"record","name":"B","namespace":"x","fields":[]}},
			  {"name":"b2","type":"x.B"},
			  {"name":"c","type":{"type":"enum","name":"y.C","symbols":["P","Q"],"default":"P","aliases":["y.OldC","z.D"]}},
			  {"name":"c2","type":["null","y.C"],"default":null},
			  {"name":"f","type":{"type":"fixed","size":16,"name":"F","logicalType":"decimal","precision":4}}]}`,
			`{"type":"record","name":"A","namespace":"x","fields":[{"name":"b","type":{"type":"record","name":"B","fields":[]}},{"name":"b2","type":"B"},{"name":"c","type":{"type":"enum","name":"C","namespace":"y","symbols":["P","Q"],"default":"P","aliases":["OldC","z.D"]}},{"name":"c2","type":["null","y.C"],"default":null},{"name":"f","type":{"type":"fixed","name":"F","size":16,"logicalType":"decimal","precision":4}}]}`},
		{"primitives, logical types, numbers, order, properties",
			`{"type":"record","name":"R","aliases":["Old"],"x-owner":"orders","fields":[
			  {"name":"a","type":{"type":"string"},"default":"x"},
			  {"name":"t","type":{"logicalType":"timestamp-millis","type":"long"}},
			  {"name":"d","type":"double","default":1e3},
			  {"name":"s","type":"double","default":0.00001},
			  {"name":"o","type":"int","x-pii":true,"aliases":["oo"],"order":"DESCENDING","default":-0},
			  {"name":"m","type":{"type":"map","values":{"type":"array","items":"R"}},"default":{"k":[]}}]}`,
			`{"type":"record","name":"R","fields":[{"name":"a","type":"string","default":"x"},{"name":"t","type":{"type":"long","logicalType":"timestamp-millis"}},{"name":"d","type":"double","default":1000.0},{"name":"s","type":"double","default":1.0E-5},{"name":"o","type":"int","default":0,"order":"descending","aliases":["oo"],"x-pii":true},{"name":"m","type":{"type":"map","values":{"type":"array","items":"R"}},"default":{"k":[]}}],"x-owner":"orders","aliases":["Old"]}`},
		{"a record leaving its enclosing namespace",
			`{"type":"record","name":"a.Outer","fields":[{"name":"i","type":{"type":"record","name":"Inner","namespace":"","fields":[]}}]}`,
			`{"type":"record","name":"Outer","namespace":"a","fields":[{"name":"i","type":{"type":"record","name":"Inner","namespace":"","fields":[]}}]}`},
		{"escapes as Jackson writes them",
			"{\"type\":\"record\",\"name\":\"E\",\"doc\":\"tab\\there \\u00e9 \\u0001 \\/\",\"fields\":[]}",
			"{\"type\":\"record\",\"name\":\"E\",\"doc\":\"tab\\there é \\u0001 /\",\"fields\":[]}"},
		{"a bare primitive", ` "string" `, `"string"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Engine{}.Canonical([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("canonical form\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestCanonicalRefusesWhatDoesNotParse(t *testing.T) {
	for _, in := range []string{`{"type":"record","name":"R","fields":[{"name":"a","type":"Missing"}]}`, `{"type":`, `[]x`} {
		if got, err := (Engine{}).Canonical([]byte(in)); err == nil {
			t.Errorf("Canonical(%s) = %s, want an error", in, got)
		}
	}
}

func TestJavaDouble(t *testing.T) {
	for in, want := range map[float64]string{1: "1.0", 1.5: "1.5", 1e7: "1.0E7", 9999999: "9999999.0", 0.001: "0.001",
		0.0001: "1.0E-4", -2.5e-10: "-2.5E-10", 123456.789: "123456.789", 1.2345e21: "1.2345E21"} {
		if got := javaDouble(in); got != want {
			t.Errorf("javaDouble(%v) = %s, want %s", in, got, want)
		}
	}
}

// The example tree's Avro schemas: their canonical forms are golden, and a layout
// change (indentation, key order) leaves them unchanged.
func TestCanonicalOfExampleSchemas(t *testing.T) {
	files, _ := filepath.Glob("../../contracts/*/*/*.avsc")
	if len(files) == 0 {
		t.Fatal("no example schemas found")
	}
	var golden strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Engine{}.Canonical(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		golden.WriteString("== " + filepath.Base(f) + "\n" + string(got) + "\n")
		if again, err := (Engine{}).Canonical(got); err != nil || string(again) != string(got) {
			t.Errorf("%s: the canonical form of the canonical form differs (%v):\n%s", f, err, again)
		}
		relaid, err := Engine{}.Canonical(reverseKeys(t, data))
		if err != nil {
			t.Fatal(err)
		}
		if string(relaid) != string(got) {
			t.Errorf("%s: reordering keys and re-indenting changed the canonical form:\n%s\n%s", f, got, relaid)
		}
	}
	checkGolden(t, "testdata/canonical/examples.golden", golden.String())
}

// reverseKeys prints a JSON text again with another indentation and, in every object,
// the attributes Avro reads itself in reverse order before the others (custom
// properties, logicalType among them, keep their order: Avro Java prints them in
// source order, so their order is part of the canonical form).
func reverseKeys(t *testing.T, data []byte) []byte {
	t.Helper()
	n, err := parseJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(n *jsontext.Node, depth int)
	walk = func(n *jsontext.Node, depth int) {
		pad := "\n" + strings.Repeat("\t", depth+1)
		switch n.Kind {
		case jsontext.Object:
			var ms []jsontext.Member
			for i := len(n.Members) - 1; i >= 0; i-- {
				if m := n.Members[i]; schemaReserved[m.Key] || fieldReserved[m.Key] {
					ms = append(ms, m)
				}
			}
			ms = append(ms, properties(n, schemaReserved, fieldReserved)...)
			b.WriteString("{")
			for i, m := range ms {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString(pad)
				writeJSONString(&b, m.Key)
				b.WriteString(" :  ")
				walk(m.Val, depth+1)
			}
			b.WriteString("\n}")
		case jsontext.Array:
			b.WriteString("[ ")
			for i, e := range n.Elems {
				if i > 0 {
					b.WriteString(" ,")
				}
				walk(e, depth+1)
			}
			b.WriteString(" ]")
		default:
			writeJSONValue(&b, n)
		}
	}
	walk(n, 0)
	return []byte(b.String())
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", path, got)
	}
}
