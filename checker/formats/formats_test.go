package formats

import (
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

// TestTableIsConsistent: formats and extensions are unique, every engine lists rules
// with ids and purposes, and lookups find each row.
func TestTableIsConsistent(t *testing.T) {
	formats, exts := map[checker.Format]bool{}, map[string]bool{}
	for _, e := range All() {
		d := e.Describe()
		if d.Format == "" || d.Name == "" || d.RegistryType == "" || len(d.Extensions) == 0 {
			t.Errorf("%+v: a format needs a name, a registry type and an extension", d)
		}
		if formats[d.Format] {
			t.Errorf("format %s is listed twice", d.Format)
		}
		formats[d.Format] = true
		for _, x := range d.Extensions {
			if !strings.HasPrefix(x, ".") || exts[x] {
				t.Errorf("extension %q of %s is malformed or taken", x, d.Format)
			}
			exts[x] = true
			if got, ok := ByExtension("a/b" + strings.ToUpper(x)); !ok || got.Describe().Format != d.Format {
				t.Errorf("ByExtension(%s) does not find %s", x, d.Format)
			}
		}
		if got, ok := Lookup(" " + strings.ToUpper(string(d.Format))); !ok || got.Describe().Format != d.Format {
			t.Errorf("Lookup does not find %s", d.Format)
		}
		if len(e.RuleTables()) == 0 {
			t.Errorf("%s lists no rule table", d.Format)
		}
		for _, tab := range e.RuleTables() {
			if tab.Name == "" || tab.Applies == "" || len(tab.Rules) == 0 {
				t.Errorf("%s: table %q needs a name, when it applies, and rules", d.Format, tab.Name)
			}
			for _, r := range tab.Rules {
				if r.ID == "" || r.Purpose == "" {
					t.Errorf("%s: table %q: rule %+v needs an id and a purpose", d.Format, tab.Name, r)
				}
			}
		}
	}
	if _, ok := Lookup("cobol"); ok {
		t.Error("Lookup found a format that is not in the table")
	}
}

// TestRegisterAndRemove: a registered engine is found until removed, and removing it
// restores the table.
func TestRegisterAndRemove(t *testing.T) {
	before := Names()
	remove := Register(fakeEngine{})
	if _, ok := Lookup("fake"); !ok {
		t.Fatal("a registered format is not found")
	}
	if got := Names(); len(got) != len(before)+1 || got[len(got)-1] != "fake" {
		t.Errorf("Names() = %v, want %v then fake", got, before)
	}
	remove()
	if _, ok := Lookup("fake"); ok {
		t.Error("a removed format is still found")
	}
	if got := Names(); strings.Join(got, ",") != strings.Join(before, ",") {
		t.Errorf("after removal Names() = %v, want %v", got, before)
	}
}

type fakeEngine struct{ checker.Engine }

func (fakeEngine) Describe() checker.Description {
	return checker.Description{Format: "fake", Name: "Fake", Extensions: []string{".fake"}, RegistryType: "JSON"}
}
