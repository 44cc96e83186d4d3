package avro

import (
	"fmt"
	"strings"
	"testing"

	hamba "github.com/hamba/avro/v2"

	"github.com/contractbot/contractbot/checker"
)

// A record default may leave out fields that have their own default (Avro
// specification, "Complex Types": a record's default is an object of its fields'
// defaults; Avro Java fills the rest): one case per kind of field left out, the
// specification's default forms (bytes and fixed as strings of code points 0-255).
func TestRecordDefaultTakesOmittedFieldsDefaults(t *testing.T) {
	cases := []struct {
		kind, field, want string
	}{
		{"boolean", `{"name":"g","type":"boolean","default":true}`, "true"},
		{"record", `{"name":"g","type":{"type":"record","name":"N","fields":[{"name":"a","type":"int","default":1}]},"default":{}}`, "map[a:1]"},
		{"nested record left out whole", `{"name":"g","type":{"type":"record","name":"N","fields":[{"name":"a","type":"int","default":1},{"name":"b","type":"string","default":"x"}]},"default":{"a":2}}`, "map[a:2 b:x]"},
		{"union", `{"name":"g","type":["string","null"],"default":"s"}`, "s"},
		{"union with a record first", `{"name":"g","type":[{"type":"record","name":"U","fields":[{"name":"u","type":"long","default":7}]},"null"],"default":{}}`, "map[u:7]"},
		{"enum", `{"name":"g","type":{"type":"enum","name":"E","symbols":["A","B"]},"default":"B"}`, "B"},
		{"fixed", `{"name":"g","type":{"type":"fixed","name":"F","size":2},"default":"\u0000\u00ff"}`, "[0 255]"},
		{"bytes", `{"name":"g","type":"bytes","default":"\u00ff"}`, "[255]"},
		{"array", `{"name":"g","type":{"type":"array","items":"int"},"default":[1,2]}`, "[1 2]"},
		{"map", `{"name":"g","type":{"type":"map","values":"int"},"default":{"k":3}}`, "map[k:3]"},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			text := `{"type":"record","name":"Outer","fields":[{"name":"inner","type":{"type":"record","name":"Inner","fields":[
				{"name":"f7","type":"boolean"},` + c.field + `]},"default":{"f7":false}}]}`
			s, err := Parse(checker.Input{Path: "outer.avsc", Data: []byte(text)})
			if err != nil {
				t.Fatalf("the specification allows it, Avro Java accepts it: %v", err)
			}
			outer := s.Avro().(*hamba.RecordSchema)
			d, ok := outer.Fields()[0].Default().(map[string]any)
			if !ok {
				t.Fatalf("default of inner is %T", outer.Fields()[0].Default())
			}
			if d["f7"] != false {
				t.Errorf("f7 = %v, want the value written (false)", d["f7"])
			}
			if got := fmt.Sprint(d["g"]); got != c.want {
				t.Errorf("g = %s, want its own default %s", got, c.want)
			}
		})
	}
}

// What stays an error: a record default leaving out a field without a default, and
// an enum default that is not one of the symbols (modern Avro refuses it too).
func TestRecordDefaultErrorsStay(t *testing.T) {
	for name, text := range map[string]string{
		"field without a default left out": `{"type":"record","name":"O","fields":[{"name":"i","type":{"type":"record","name":"I","fields":[{"name":"a","type":"int"},{"name":"b","type":"int","default":1}]},"default":{"b":2}}]}`,
		"enum default not a symbol":        `{"type":"record","name":"O","fields":[{"name":"e","type":{"type":"enum","name":"E","symbols":["A"]},"default":"Z"}]}`,
	} {
		_, err := Parse(checker.Input{Path: "o.avsc", Data: []byte(text)})
		if err == nil || !strings.Contains(err.Error(), "default") {
			t.Errorf("%s: %v, want an error about the default", name, err)
		}
	}
}
