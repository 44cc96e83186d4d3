package lineage

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Render returns the consumer file as the SQL says it should be. A new file gets name,
// owner, kind and system; an existing one keeps every byte outside the reads and
// produces blocks (name, owner, kind, system, description, comments), and those blocks
// are rewritten only when they differ from the SQL as sets, in the style they had
// (flow or block reads; existing field order first).
func Render(old []byte, d *Declared, owner, kind string) ([]byte, error) {
	if d.Existing == nil || old == nil {
		return []byte(newFile(d, owner, kind)), nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal(old, &root); err != nil {
		return nil, fmt.Errorf("parse consumer file %s: %w", d.File, err)
	}
	if len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("consumer file %s is not a mapping", d.File)
	}
	doc := root.Content[0]
	lines := strings.SplitAfter(string(old), "\n")
	type block struct {
		key        string
		start, end int // line indexes [start, end)
		value      *yaml.Node
	}
	var blocks []block
	for i := 0; i+1 < len(doc.Content); i += 2 {
		blocks = append(blocks, block{key: doc.Content[i].Value, start: doc.Content[i].Line - 1, value: doc.Content[i+1]})
	}
	for i := range blocks {
		end := len(lines)
		if i+1 < len(blocks) {
			end = blocks[i+1].start
			// comments and blank lines at column 0 just above the next key are its own
			for end > blocks[i].start+1 && (strings.TrimSpace(lines[end-1]) == "" || strings.HasPrefix(lines[end-1], "#")) {
				end--
			}
		}
		blocks[i].end = end
	}
	find := func(key string) int {
		return slices.IndexFunc(blocks, func(b block) bool { return b.key == key })
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	c := d.Existing
	ri := find("reads")
	if extra, missing := setDiff(d.Reads, c.Reads); len(extra)+len(missing) > 0 {
		flow := ri < 0 || blocks[ri].value.Style&yaml.FlowStyle != 0
		text := readsBlock(d.Reads, flow)
		if ri >= 0 {
			edits = append(edits, edit{blocks[ri].start, blocks[ri].end, text})
		} else {
			edits = append(edits, edit{len(lines), len(lines), text})
		}
	}
	if producesDiffer(d, c.Produces) {
		text := producesBlock(d, fieldOrder(doc))
		if pi := find("produces"); pi >= 0 {
			edits = append(edits, edit{blocks[pi].start, blocks[pi].end, text})
		} else {
			at := len(lines)
			if ri >= 0 {
				at = blocks[ri].end
			}
			edits = append(edits, edit{at, at, text})
		}
	}
	slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
	for _, e := range edits {
		lines = slices.Replace(lines, e.start, e.end, e.text)
	}
	out := strings.Join(lines, "")
	if len(edits) > 0 && !strings.HasSuffix(string(old), "\n") && strings.HasSuffix(out, "\n") && !strings.HasSuffix(lines[len(lines)-1], "\n") {
		out = strings.TrimSuffix(out, "\n")
	}
	var check yaml.Node
	if err := yaml.Unmarshal([]byte(out), &check); err != nil {
		return nil, fmt.Errorf("rewrite consumer file %s: the result does not parse: %w", d.File, err)
	}
	return []byte(out), nil
}

func producesDiffer(d *Declared, have map[string]map[string][]string) bool {
	if len(d.Produces) != len(have) {
		return true
	}
	for o, want := range d.Produces {
		h, ok := have[o]
		if !ok || len(h) != len(want) {
			return true
		}
		for f, w := range want {
			if extra, missing := setDiff(w, h[f]); len(extra)+len(missing) > 0 || h[f] == nil {
				return true
			}
		}
	}
	return false
}

func newFile(d *Declared, owner, kind string) string {
	depth := strings.Count(d.File, "/")
	var b strings.Builder
	fmt.Fprintf(&b, "# yaml-language-server: $schema=%sdocs/schemas/consumer.schema.json\n", strings.Repeat("../", depth))
	fmt.Fprintf(&b, "name: %s\nowner: %s\nkind: %s\n", scalar(d.nameOf()), scalar(owner), scalar(kind))
	if kind == "flink-job" {
		b.WriteString("system: flink\n")
	}
	b.WriteString("description: Written by contractbot lineage sync from the job's Flink SQL.\n")
	b.WriteString(readsBlock(d.Reads, len(strings.Join(d.Reads, ", ")) < 80))
	if len(d.Produces) > 0 {
		b.WriteString(producesBlock(d, nil))
	}
	return b.String()
}

func (d *Declared) nameOf() string {
	base := d.File[strings.LastIndexByte(d.File, '/')+1:]
	return strings.TrimSuffix(base, ".yaml")
}

func readsBlock(reads []string, flow bool) string {
	if flow {
		q := make([]string, len(reads))
		for i, r := range reads {
			q[i] = scalar(r)
		}
		return "reads: [" + strings.Join(q, ", ") + "]\n"
	}
	var b strings.Builder
	b.WriteString("reads:\n")
	for _, r := range reads {
		fmt.Fprintf(&b, "  - %s\n", scalar(r))
	}
	return b.String()
}

// producesBlock writes produces: in the existing order of output subjects and fields,
// then the SQL's order for new ones.
func producesBlock(d *Declared, have map[string][]string) string {
	if len(d.Produces) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("produces:\n")
	outs := make([]string, 0, len(d.Produces))
	for o := range d.Produces {
		outs = append(outs, o)
	}
	slices.Sort(outs)
	for _, o := range outs {
		fmt.Fprintf(&b, "  %s:\n", scalar(o))
		order := existingOrder(have[o], d.FieldOrder[o])
		for _, f := range order {
			srcs, ok := d.Produces[o][f]
			if !ok {
				continue
			}
			q := make([]string, len(srcs))
			for i, s := range srcs {
				q[i] = scalar(s)
			}
			fmt.Fprintf(&b, "    %s: [%s]\n", scalar(f), strings.Join(q, ", "))
		}
	}
	return b.String()
}

// existingOrder puts the fields the file already maps first, in the file's order, then
// the SQL's new ones in the SQL's order.
func existingOrder(have, sqlOrder []string) []string {
	out := slices.Clone(have)
	for _, f := range sqlOrder {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// fieldOrder reads the order of the output fields under produces in the file.
func fieldOrder(doc *yaml.Node) map[string][]string {
	out := map[string][]string{}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value != "produces" || doc.Content[i+1].Kind != yaml.MappingNode {
			continue
		}
		p := doc.Content[i+1]
		for j := 0; j+1 < len(p.Content); j += 2 {
			m := p.Content[j+1]
			for k := 0; k+1 < len(m.Content); k += 2 {
				out[p.Content[j].Value] = append(out[p.Content[j].Value], m.Content[k].Value)
			}
		}
	}
	return out
}

var plain = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\-]*$`)

// scalar writes s as a YAML scalar, quoted only when it must be.
func scalar(s string) string {
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "y", "n", "~":
		return `"` + s + `"`
	}
	if plain.MatchString(s) {
		return s
	}
	out, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSuffix(string(out), "\n")
}
