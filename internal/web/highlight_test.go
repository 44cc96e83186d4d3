package web

import (
	"strings"
	"testing"
)

func TestHighlightJSON(t *testing.T) {
	src := `{"type": "record", "doc": "a \"quoted\" <b>", "size": -12.5e3, "default": null, "ok": true}`
	got := string(highlight("avro", []byte(src)))
	for _, want := range []string{
		`<span class="hl-k">&#34;type&#34;</span>: <span class="hl-s">&#34;record&#34;</span>`,
		`<span class="hl-s">&#34;a \&#34;quoted\&#34; &lt;b&gt;&#34;</span>`,
		`<span class="hl-n">-12.5e3</span>`,
		`<span class="hl-b">null</span>`,
		`<span class="hl-b">true</span>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("highlight lacks %s\n%s", want, got)
		}
	}
}

func TestHighlightProto(t *testing.T) {
	src := "syntax = \"proto3\";\n// a <comment>\nmessage M {\n  repeated int64 ids = 3; /* x */\n  acme.Money amount = 12;\n}\n"
	got := string(highlight("protobuf", []byte(src)))
	for _, want := range []string{
		`<span class="hl-k">syntax</span> = <span class="hl-s">&#34;proto3&#34;</span>;`,
		`<span class="hl-c">// a &lt;comment&gt;</span>`,
		`<span class="hl-k">repeated</span> <span class="hl-t">int64</span> ids = <span class="hl-n">3</span>;`,
		`<span class="hl-c">/* x */</span>`,
		`acme.Money amount = <span class="hl-n">12</span>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("highlight lacks %s\n%s", want, got)
		}
	}
}

// FuzzHighlight checks that no input, however broken, puts a tag of its own into the
// output: every '<' that is not one of our spans is escaped.
func FuzzHighlight(f *testing.F) {
	for _, s := range []string{`{"a": "<script>"}`, "message M { string s = 1; } // </span>", `"unterminated <img`, "/* <x", "'<'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, format := range []string{"avro", "protobuf", "other"} {
			out := string(highlight(format, []byte(s)))
			rest := strings.NewReplacer(`<span class="hl-k">`, "", `<span class="hl-s">`, "", `<span class="hl-n">`, "",
				`<span class="hl-t">`, "", `<span class="hl-c">`, "", `<span class="hl-b">`, "", `</span>`, "").Replace(out)
			if strings.ContainsAny(rest, "<>") {
				t.Fatalf("%s: unescaped markup in %q", format, out)
			}
		}
	})
}
