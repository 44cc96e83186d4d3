package change

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/internal/contract"
)

// producerErrors returns lint's errors on the consumer files, in folders the partial
// load of head did not reach, that produce into a subject the change deleted, renamed
// or took a field from: a produces target that is gone (unknown-subject) or an output
// field it no longer has (unknown-output-field). Lineage is loaded downstream only, so
// those producers are found by reading every consumer file for the subjects' names;
// that happens only when a changed subject lost its name or a field.
func producerErrors(src contract.Source, base, head *contract.Tree, dirs []string, index contract.Index) (contract.Diagnostics, error) {
	names := shrunk(base, head, dirs)
	if len(names) == 0 {
		return nil, nil
	}
	loaded := map[string]bool{}
	for _, s := range head.Subjects {
		loaded[s.Dir] = true
	}
	for _, d := range head.Unreadable {
		loaded[d] = true
	}
	all, err := contract.SubjectDirs(src)
	if err != nil {
		return nil, fmt.Errorf("list the subject folders of %s: %w", src.Describe(), err)
	}
	var producers []string
	for _, dir := range all {
		if !loaded[dir] && mentions(src, dir, names) {
			producers = append(producers, dir)
		}
	}
	if len(producers) == 0 {
		return nil, nil
	}
	t, err := contract.LoadSubjectsIn(src, producers, index)
	if err != nil {
		return nil, fmt.Errorf("load the producers into %s: %w", strings.Join(names, ", "), err)
	}
	var out contract.Diagnostics
	for _, d := range t.Diagnostics {
		if d.Code != contract.CodeUnknownSubject && d.Code != contract.CodeUnknownOutput {
			continue
		}
		if slices.ContainsFunc(producers, func(p string) bool { return strings.HasPrefix(d.File, p+"/"+contract.ConsumersDir+"/") }) {
			out = append(out, d)
		}
	}
	return out, nil
}

// shrunk lists the subjects of the changed folders dirs in base that head no longer
// has, or that lost a field path (a schema that does not parse is reported on its own).
func shrunk(base, head *contract.Tree, dirs []string) []string {
	var out []string
	for _, b := range base.Subjects {
		if !slices.Contains(dirs, b.Dir) {
			continue
		}
		h := head.Subject(b.Subject)
		if h == nil {
			out = append(out, b.Subject)
			continue
		}
		if h.FieldPaths() == nil {
			continue
		}
		if slices.ContainsFunc(b.FieldPaths(), func(p string) bool { return !h.HasFieldPath(p) }) {
			out = append(out, b.Subject)
		}
	}
	return out
}

// mentions reports whether a consumer file of dir names one of the subjects.
func mentions(src contract.Source, dir string, names []string) bool {
	entries, err := src.ReadDir(dir + "/" + contract.ConsumersDir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Dir || e.Symlink || !strings.HasSuffix(e.Name, ".yaml") {
			continue
		}
		data, err := src.ReadFile(dir+"/"+contract.ConsumersDir+"/"+e.Name, contract.MaxYAMLBytes)
		if err != nil {
			continue
		}
		if slices.ContainsFunc(names, func(n string) bool { return bytes.Contains(data, []byte(n)) }) {
			return true
		}
	}
	return false
}

// producersOfRules returns the subject folders, not among dirs, whose consumer files
// (in base or head) name a subject of dirs whose data rules differ between base and
// head: the jobs that
// may produce into it, which a rule rejecting writes concerns (the verdict asks their
// owners to sign off). Lineage is loaded downstream only, so they are found as
// producerErrors finds them, by reading every consumer file for the subjects' names;
// that happens only when a change touches `rules:`.
func producersOfRules(base, head contract.Source, dirs []string) ([]string, error) {
	var names []string
	for _, dir := range dirs {
		path := dir + "/" + contract.ContractFile
		bd, berr := base.ReadFile(path, contract.MaxYAMLBytes)
		hd, herr := head.ReadFile(path, contract.MaxYAMLBytes)
		if herr != nil || (berr == nil && bytes.Equal(bd, hd)) {
			continue // most changes leave contract.yaml alone: nothing to decode
		}
		h := contract.DecodeDataContract(path, hd)
		var b *contract.Subject
		if berr == nil {
			b = contract.DecodeDataContract(path, bd)
		}
		if h == nil || h.Subject == "" || (b != nil && sameRules(b.Rules, h.Rules)) || (b == nil && len(h.Rules) == 0) {
			continue
		}
		names = append(names, h.Subject)
	}
	if len(names) == 0 {
		return nil, nil
	}
	// The producers of the base count (the verdict asks them, so deleting their
	// produces: entries in the same change does not escape it), and those of the head.
	var out []string
	for _, src := range []contract.Source{base, head} {
		all, err := contract.SubjectDirs(src)
		if err != nil {
			return nil, fmt.Errorf("list the subject folders of %s: %w", src.Describe(), err)
		}
		for _, dir := range all {
			if !slices.Contains(dirs, dir) && !slices.Contains(out, dir) && mentions(src, dir, names) {
				out = append(out, dir)
			}
		}
	}
	return out, nil
}

// sameRules reports whether two lists of rules send the same ruleSet.
func sameRules(a, b []contract.Rule) bool {
	return slices.EqualFunc(a, b, contract.Rule.Same)
}
