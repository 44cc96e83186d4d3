package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	sv "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/contractbot/contractbot/checker/jsontext"
)

// memBase is the URL the documents of one Parse are known by to the validator.
const memBase = "mem:///contracts/"

var svDrafts = map[int]*sv.Draft{4: sv.Draft4, 6: sv.Draft6, 7: sv.Draft7, 2019: sv.Draft2019, 2020: sv.Draft2020}

var printer = message.NewPrinter(language.English)

// treeLoader serves the documents Parse read, and refuses every other URL: a schema is
// checked with the files of the tree only, never the network. A $ref names another
// file from contracts/, while the validator resolves it against the referring file's
// URL, so a URL is matched by the document name it ends with.
type treeLoader struct{ b *builder }

func (l treeLoader) Load(u string) (any, error) {
	if d := l.b.docForURL(u); d != nil {
		return toAny(d.text), nil
	}
	return nil, fmt.Errorf("%s is not a file of the tree", strings.TrimPrefix(u, memBase))
}

// docForURL finds the document a validator URL stands for, or nil.
func (b *builder) docForURL(u string) *document {
	u, _, _ = strings.Cut(u, "#")
	p, err := url.PathUnescape(strings.TrimPrefix(u, memBase))
	if err != nil {
		return nil
	}
	var best *document
	for _, d := range b.order {
		if (p == d.name || strings.HasSuffix(p, "/"+d.name)) && (best == nil || len(d.name) > len(best.name)) {
			best = d
		}
	}
	return best
}

// validate compiles the documents with santhosh-tekuri/jsonschema, which checks each
// against its draft's meta-schema; what it refuses is reported at the place it names.
func (b *builder) validate(main *document) {
	c := sv.NewCompiler()
	c.DefaultDraft(svDrafts[main.draft])
	c.UseLoader(treeLoader{b})
	mainURL := memBase + (&url.URL{Path: main.name}).EscapedPath()
	_, err := c.Compile(mainURL)
	if err == nil {
		return
	}
	var sve *sv.SchemaValidationError
	if errors.As(err, &sve) {
		base, frag, _ := strings.Cut(sve.URL, "#")
		d := b.docForURL(base)
		if d == nil {
			d = main
		}
		if f, err := url.PathUnescape(frag); err == nil {
			frag = f
		}
		var ve *sv.ValidationError
		if errors.As(sve.Err, &ve) {
			leaf := ve
			for len(leaf.Causes) > 0 {
				leaf = leaf.Causes[0]
			}
			ptr := strings.TrimSuffix(frag, "/")
			for _, t := range leaf.InstanceLocation {
				ptr += "/" + jsontext.EscapePointerToken(t)
			}
			n, off, _ := jsontext.ResolvePointer(d.text, ptr)
			if n != nil && ptr != "" {
				off = n.Off
			}
			b.fail(d, off, "the schema does not follow the %s meta-schema at %s: %s", draftName(d.draft), orRoot(ptr), leaf.ErrorKind.LocalizedString(printer))
			return
		}
	}
	b.fail(main, 0, "the schema does not compile: %s", strings.ReplaceAll(err.Error(), memBase, ""))
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "the root"
	}
	return ptr
}

func draftName(d int) string {
	switch d {
	case 2019:
		return "2019-09"
	case 2020:
		return "2020-12"
	}
	return fmt.Sprintf("draft-%02d", d)
}

// toAny turns a parsed value into what the validator reads (numbers as json.Number).
func toAny(v *jsontext.Node) any {
	switch v.Kind {
	case jsontext.Object:
		m := make(map[string]any, len(v.Members))
		for _, mb := range v.Members {
			m[mb.Key] = toAny(mb.Val)
		}
		return m
	case jsontext.Array:
		a := make([]any, len(v.Elems))
		for i, el := range v.Elems {
			a[i] = toAny(el)
		}
		return a
	case jsontext.String:
		return v.Str
	case jsontext.Number:
		return json.Number(v.Str)
	case jsontext.Bool:
		return v.Str == "true"
	}
	return nil
}
