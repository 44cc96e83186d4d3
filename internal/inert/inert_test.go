package inert

import (
	"strings"
	"testing"
)

func TestTerminal(t *testing.T) {
	for in, want := range map[string]string{
		"amount":                   "amount",
		"a\nb":                     `a\nb`,
		"x\x1b[2J\x1b]0;owned\x07": `x\x1b[2J\x1b]0;owned\x07`,
		"::error file=a::b":        `\::error file=a::b`,
		"  ::add-mask::x":          `\  ::add-mask::x`,
		"f\n::error::forged":       `f\n::error::forged`,
		"evil\u202etxt.exe":        `evil\u202etxt.exe`,
		"caf\u00e9 \u65e5\u672c":   "caf\u00e9 \u65e5\u672c",
		"\u0085next":               `\x85next`,
	} {
		if got := Terminal(in); got != want {
			t.Errorf("Terminal(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestShorten(t *testing.T) {
	if got := Shorten("abcdef", 4); got != "abc…" {
		t.Errorf("Shorten = %q", got)
	}
	if got := Shorten("日本語です", 3); got != "日本…" {
		t.Errorf("Shorten of multi-byte text = %q", got)
	}
	if got := Name(strings.Repeat("x", 70000)); len([]rune(got)) != MaxName || !strings.HasSuffix(got, "…") {
		t.Errorf("Name of 70,000 characters: %d characters", len([]rune(got)))
	}
	if got := Shorten("abc", 3); got != "abc" {
		t.Errorf("Shorten of a short text = %q", got)
	}
}

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"amount":                 "amount",
		"evil\u202etxt.exe":      `evil\u202etxt.exe`,
		"amo\u200bunt":           `amo\u200bunt`,
		"a\u200db\u2060c\ufeff":  `a\u200db\u2060c\ufeff`,
		"soft\u00adhyphen":       `soft\xadhyphen`,
		"line\u2028break\nnext":  `line\u2028break\nnext`,
		"caf\u00e9 \u65e5\u672c": "caf\u00e9 \u65e5\u672c",
		"::error::x":             "::error::x",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}
