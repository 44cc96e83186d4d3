package web

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/contractbot/contractbot/internal/inert"
)

// maxPart is the longest run of an identifier between two of its separators that a
// page shows whole: about a phone's width of monospace text. A longer run is shortened
// with an ellipsis (the whole name is then the element's title).
const maxPart = 40

// ident is an identifier (a subject, topic, field path, consumer, team, file, level)
// as HTML text: shortened past inert.MaxName characters, with a line-break opportunity
// (<wbr>) after each ".", "_", "-" and "/", so that a narrow column wraps it between
// its parts and never inside one; a part longer than maxPart is shortened with an
// ellipsis. Characters that are not seen as themselves (bidirectional controls, zero-
// width ones) are shown as escapes (inert.Visible). When anything was shortened the
// text is a span whose title is the name (itself shortened past inert.MaxName).
func ident(s string) template.HTML {
	seen := inert.Visible(s)
	shown := inert.Name(seen)
	cut := shown != seen
	var b strings.Builder
	for rest := shown; rest != ""; {
		part, sep := rest, ""
		if i := strings.IndexAny(rest, "._-/"); i >= 0 {
			part, sep, rest = rest[:i], rest[i:i+1], rest[i+1:]
		} else {
			rest = ""
		}
		if short := inert.Shorten(part, maxPart); short != part {
			part, cut = short, true
		}
		b.WriteString(template.HTMLEscapeString(part))
		if sep != "" {
			b.WriteString(sep + "<wbr>")
		}
	}
	out := b.String()
	if cut {
		out = `<span title="` + template.HTMLEscapeString(shown) + `">` + out + `</span>`
	}
	return template.HTML(out)
}

// text is a sentence or a description a pull request controls (a doc, a note that
// quotes names), shortened past inert.MaxText characters (see prose).
func text(s string) string { return prose(s, inert.MaxText) }

// title is a name that is not an identifier (a calendar entry's or a pull request's
// title, a team's name), shortened past inert.MaxName characters (see prose).
func title(s string) string { return prose(s, inert.MaxName) }

// prose is s shortened to n characters, its bidirectional overrides, embeddings and
// isolates shown as escapes (they would reorder the rest of the line; the marks a
// right-to-left script needs stay); html/template escapes the rest.
func prose(s string, n int) string {
	s = inert.Shorten(s, n)
	if !strings.ContainsFunc(s, reorders) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if reorders(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// reorders: U+202A-U+202E (embeddings and overrides), U+2066-U+2069 (isolates).
func reorders(r rune) bool { return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 }

// plainName is a name inside a sentence the server writes as plain text (a tooltip of
// the lineage graph): shortened past inert.MaxName, its invisible characters escaped.
func plainName(s string) string { return inert.Name(inert.Visible(s)) }
