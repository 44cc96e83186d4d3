package contract

import (
	"testing"
)

// FuzzLoadFiles puts fuzzed bytes in the place of a contract.yaml, a consumer file,
// a schema and a calendar entry. Whatever the bytes, Load must return (no panic, no
// hang) and every diagnostic must carry a position. The seeds run in every go test.
func FuzzLoadFiles(f *testing.F) {
	seeds := []string{
		"subject: s\nformat: avro\nschema: s.avsc\ncompatibility: BACKWARD\nowner: a\n",
		"name: c\nowner: a\nkind: service\nreads: [f]\nproduces: {s: {f: [f]}}\n",
		`{"type":"record","name":"R","fields":[{"name":"f","type":"int"}]}`,
		"a: &x [1, *x]\n",
		"- - - [\n",
		"subject: !!binary aGVsbG8=\n",
		"? [a, b]\n: c\n",
		"title: t\nkind: backfill\nsubjects: [s]\nowner: a\nwindow: {start: '2026-12-08T10:00', end: '2026-12-08T09:00'}\n",
		"\x00\xff\xfe",
		"",
		"---\na: 1\n---\nb: 2\n",
		`{"type":"record","name":"R","fields":[{"name":"f","type":{"type":"array","items":{"type":"map","values":"R"}}}]}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(2))
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, where uint8) {
		src := MemSource{
			"contracts/teams.yaml":                []byte("teams:\n  a:\n    github: ['@x/a']\n"),
			"contracts/d/s/contract.yaml":         []byte("subject: s\nformat: avro\nschema: s.avsc\ncompatibility: BACKWARD\nowner: a\n"),
			"contracts/d/s/s.avsc":                []byte(`{"type":"record","name":"R","fields":[{"name":"f","type":"int"}]}`),
			"contracts/d/s/consumers/c.yaml":      []byte("name: c\nowner: a\nkind: service\nreads: [f]\n"),
			"calendar/2026-12-08-change.yaml":     []byte("title: t\nkind: backfill\nsubjects: [s]\nowner: a\nwindow: {start: '2026-12-08T10:00', end: '2026-12-08T11:00'}\n"),
			"contracts/p/q/contract.yaml":         []byte("subject: q\nformat: protobuf\nschema: q.proto\ncompatibility: BACKWARD\nowner: a\n"),
			"contracts/p/q/q.proto":               []byte("syntax = \"proto3\";\nmessage Q { int32 a = 1; }\n"),
			"contracts/p/q/consumers/reader.yaml": []byte("name: reader\nowner: a\nkind: service\nreads: [a]\n"),
		}
		targets := []string{"contracts/d/s/contract.yaml", "contracts/d/s/consumers/c.yaml", "contracts/d/s/s.avsc", "calendar/2026-12-08-change.yaml", "contracts/p/q/q.proto", "contracts/teams.yaml"}
		src[targets[int(where)%len(targets)]] = data
		tree, err := Load(src)
		if err != nil {
			t.Fatalf("system error from an in-memory tree: %v", err)
		}
		for _, d := range tree.Diagnostics {
			if d.Line < 1 || d.Column < 1 || d.File == "" || d.Message == "" {
				t.Fatalf("diagnostic without a place or a message: %+v", d)
			}
		}
	})
}
