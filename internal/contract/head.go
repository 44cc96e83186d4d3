package contract

import (
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/formats"
)

// Head is what makes a folder a subject: the keys of its contract.yaml that name the
// subject, its format, its schema file and its level. The loader and the versions
// index both read them through DecodeHead, so they agree on what a subject is.
type Head struct {
	Subject       string // "" when missing or invalid
	Format        string // a format of checker/formats, "" when missing or invalid
	Schema        string // the schema file, relative to the subject folder; "" when missing or invalid
	Compatibility string // a level as checker.ParseLevel spells it, "" when missing or invalid
	// DataContract identifies the data contract the file declares (DataContractKey);
	// set by DecodeHead only.
	DataContract string
	// Rules is set when the file declares data rules (`rules:`); by DecodeHead only.
	Rules bool
}

// DecodeHead reads the head keys of the contract.yaml at path
// (contracts/<domain>/<name>/contract.yaml) with the loader's rules: one YAML
// document, no aliases, the same syntax for each value. It returns the diagnostics of
// the file's syntax and of those keys (a missing subject or schema included); a Head
// without a Subject or a Schema is not a subject.
func DecodeHead(path string, data []byte) (Head, Diagnostics) {
	var ds Diagnostics
	f := &file{path: path, diags: &ds}
	o := f.parse(data)
	if o == nil {
		return Head{}, ds
	}
	for _, k := range []string{"subject", "schema"} {
		if !o.has(k) {
			o.f.report(o.pos, CodeMissingKey, "contract.yaml has no %q key; add `%s:` (it is required).", k, k)
		}
	}
	domain, name := "<domain>", "<name>"
	if parts := strings.Split(path, "/"); len(parts) == 4 {
		domain, name = parts[1], parts[2]
	}
	h := decodeHead(o, domain, name)
	dc := dataContractOf(o)
	h.DataContract, h.Rules = DataContractKey(dc), len(dc.Rules) > 0
	return h, ds
}

// decodeHead reads and checks the head keys of a parsed contract.yaml, reporting on
// its file; domain and name (the folder's) appear in examples.
func decodeHead(o *object, domain, name string) Head {
	var h Head
	f := o.f
	if v, ok := o.str("subject"); ok {
		if reSubject.MatchString(v) {
			h.Subject = v
		} else {
			f.report(o.valuePos("subject"), CodeInvalidValue, "subject %q may hold only letters, digits, '.', '_' and '-', starting with a letter or digit, e.g. %s.%s-value.", v, domain, name)
		}
	}
	if v, ok := o.str("format"); ok {
		if o.oneOfValue("format", v, formats.Names()) {
			h.Format = v
		}
	}
	if v, ok := o.str("compatibility"); ok {
		if lvl, err := checker.ParseLevel(v); err == nil {
			h.Compatibility = string(lvl)
			if string(lvl) != v {
				f.report(o.valuePos("compatibility"), CodeInvalidValue, "write the compatibility level in capitals: %s.", lvl)
			}
		} else {
			o.oneOfValue("compatibility", v, levelNames)
		}
	}
	if v, ok := o.str("schema"); ok {
		if err := cleanRel(v); err != nil || strings.Contains(v, "\\") {
			f.report(o.valuePos("schema"), CodePathEscape, "schema %q must be a file inside this subject's folder, written relative to it without '..' (e.g. %s.avsc).", v, name)
		} else {
			h.Schema = v
		}
	}
	return h
}
