package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Adversarial schemas: a seed draws one hostile shape (types reusing each other level
// after level, self- and mutually recursive types, deep nesting, wide records, huge
// enums, long names, many files) in Avro, Protobuf or JSON Schema, as two versions of a subject, so
// a test can assert that loading and evaluating them stays within the budgets.

// AdversarialCase is one drawn subject: the files of its folder before and after a
// change, its record message (Protobuf) and paths a consumer reads.
type AdversarialCase struct {
	// Shape names what was drawn, for messages: "reuse depth=20 fan=2 (protobuf)".
	Shape  string
	Format string // avro | protobuf | json
	// Schema is the file contract.yaml names; Base and Head map file names in the
	// subject folder to their contents.
	Schema     string
	Base, Head map[string]string
	// Message is the Protobuf record message ("" for Avro).
	Message string
	// Reads are field paths a consumer of the subject reads (some deep, some absent).
	Reads []string
}

// The shapes Adversarial draws from.
var adversarialShapes = []string{"reuse", "recursive", "nested", "wide", "enum", "names", "files", "unions"}

// Adversarial draws a case from seed; dir is the subject folder under contracts/
// (Protobuf imports name files by their path under contracts/).
func Adversarial(seed uint64, dir string) AdversarialCase {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	shape := adversarialShapes[r.IntN(len(adversarialShapes))]
	format := "protobuf"
	if shape != "files" {
		format = []string{"avro", "protobuf", "json"}[r.IntN(3)]
	}
	g := &adversary{r: r, shape: shape, dir: dir}
	c := AdversarialCase{Format: format}
	switch format {
	case "avro":
		c.Schema = "s.avsc"
		c.Base = map[string]string{c.Schema: g.avro(false)}
		c.Head = map[string]string{c.Schema: g.avro(true)}
	case "json":
		c.Schema = "s.json"
		c.Base = map[string]string{c.Schema: g.json(false)}
		c.Head = map[string]string{c.Schema: g.json(true)}
	default:
		c.Schema = "s.proto"
		c.Message = "adv.Root"
		c.Base, c.Head = g.proto(c.Schema, false), g.proto(c.Schema, true)
	}
	c.Shape = fmt.Sprintf("%s %s (%s)", shape, g.params, format)
	c.Reads = g.reads
	return c
}

type adversary struct {
	r      *rand.Rand
	shape  string
	dir    string
	params string
	reads  []string
	// drawn once, used by both versions
	depth, fan, width int
	name              string
}

func (g *adversary) draw() {
	if g.depth != 0 {
		return
	}
	g.depth = 2 + g.r.IntN(28) // up to 29 levels
	g.fan = 2 + g.r.IntN(3)    // 2 to 4 fields reusing the level below
	g.width = 100 + g.r.IntN(3000)
	g.name = "n" + strings.Repeat("x", 200+g.r.IntN(3000))
	g.reads = []string{strings.TrimSuffix(strings.Repeat("f0.", g.depth), "."), "missing.path"}
	g.params = fmt.Sprintf("depth=%d fan=%d width=%d", g.depth, g.fan, g.width)
}

// leaf is the scalar type of the innermost field: changed in the head.
func leaf(format string, head bool) string {
	switch {
	case format == "avro" && head:
		return `"string"`
	case format == "avro":
		return `"int"`
	case head:
		return "string"
	}
	return "int32"
}

func (g *adversary) avro(head bool) string {
	g.draw()
	var b strings.Builder
	rec := func(name string, fields []string) string {
		return fmt.Sprintf(`{"type": "record", "name": %q, "fields": [%s]}`, name, strings.Join(fields, ", "))
	}
	field := func(name, typ string) string { return fmt.Sprintf(`{"name": %q, "type": %s}`, name, typ) }
	switch g.shape {
	case "reuse", "files":
		typ := rec("R0", []string{field("x", leaf("avro", head))})
		for i := 1; i <= g.depth; i++ {
			fs := []string{field("f0", typ)}
			for j := 1; j < g.fan; j++ {
				fs = append(fs, field(fmt.Sprint("f", j), fmt.Sprintf("%q", fmt.Sprint("R", i-1))))
			}
			typ = rec(fmt.Sprint("R", i), fs)
		}
		b.WriteString(rec("Root", []string{field("f0", typ)}))
	case "recursive":
		node := rec("Node", []string{field("x", leaf("avro", head)), field("f0", `["null", "Node", "Other"]`), field("self", `{"type": "array", "items": "Node"}`)})
		other := rec("Other", []string{field("back", `["null", "Node"]`), field("again", `{"type": "map", "values": "Other"}`)})
		b.WriteString(rec("Root", []string{field("f0", node), field("other", other), field("more", `"Node"`)}))
	case "nested", "unions":
		typ := leaf("avro", head)
		for i := g.depth * 3; i >= 1; i-- {
			if g.shape == "unions" {
				typ = fmt.Sprintf(`["null", %s, %s]`, rec(fmt.Sprint("A", i), []string{field("f0", typ), field("v", `"int"`)}), rec(fmt.Sprint("B", i), []string{field("f0", fmt.Sprintf("%q", fmt.Sprint("A", i))), field("v", `"long"`)}))
			} else {
				typ = rec(fmt.Sprint("N", i), []string{field("f0", typ)})
			}
		}
		b.WriteString(rec("Root", []string{field("f0", typ)}))
	case "wide":
		fs := make([]string, g.width)
		for i := range fs {
			fs[i] = field(fmt.Sprint("f", i), leaf("avro", head))
		}
		b.WriteString(rec("Root", fs))
	case "enum":
		n := g.width * 3
		if head {
			n /= 2 // half the symbols removed
		}
		syms := make([]string, n)
		for i := range syms {
			syms[i] = fmt.Sprintf("%q", fmt.Sprint("S", i))
		}
		b.WriteString(rec("Root", []string{field("f0", fmt.Sprintf(`{"type": "enum", "name": "E", "symbols": [%s]}`, strings.Join(syms, ", ")))}))
	case "names":
		fs := make([]string, 50)
		for i := range fs {
			fs[i] = field(fmt.Sprint(g.name, i), leaf("avro", head))
		}
		b.WriteString(rec("Root", []string{field("f0", rec(g.name, fs))}))
	}
	return b.String() + "\n"
}

// json draws the shape as a JSON Schema (draft 2020-12; $defs and $ref for named types).
func (g *adversary) json(head bool) string {
	g.draw()
	leafType := `{"type": "integer"}`
	if head {
		leafType = `{"type": "string"}`
	}
	obj := func(props ...string) string {
		return fmt.Sprintf(`{"type": "object", "properties": {%s}}`, strings.Join(props, ", "))
	}
	prop := func(name, schema string) string { return fmt.Sprintf("%q: %s", name, schema) }
	ref := func(name string) string { return fmt.Sprintf(`{"$ref": "#/$defs/%s"}`, name) }
	var root string
	var defs []string
	switch g.shape {
	case "reuse":
		defs = append(defs, prop("D0", obj(prop("x", leafType))))
		for i := 1; i <= g.depth; i++ {
			var ps []string
			for j := 0; j < g.fan; j++ {
				ps = append(ps, prop(fmt.Sprint("f", j), ref(fmt.Sprint("D", i-1))))
			}
			defs = append(defs, prop(fmt.Sprint("D", i), obj(ps...)))
		}
		root = obj(prop("f0", ref(fmt.Sprint("D", g.depth))))
	case "recursive":
		defs = append(defs, prop("Node", obj(prop("x", leafType), prop("f0", ref("Node")), prop("others", `{"type": "array", "items": {"$ref": "#/$defs/Other"}}`))),
			prop("Other", obj(prop("back", ref("Node")), prop("self", ref("Other")))))
		root = obj(prop("f0", ref("Node")), prop("other", ref("Other")))
	case "nested", "unions":
		typ := leafType
		for i := g.depth * 3; i >= 1; i-- {
			if g.shape == "unions" {
				typ = fmt.Sprintf(`{"anyOf": [%s, %s]}`, obj(prop("f0", typ), prop("v", `{"type": "integer"}`)), obj(prop("f0", typ), prop("w", `{"type": "number"}`)))
				if i%4 == 0 { // keep the text small: share every fourth level by $ref
					defs = append(defs, prop(fmt.Sprint("U", i), typ))
					typ = ref(fmt.Sprint("U", i))
				}
			} else {
				typ = obj(prop("f0", typ))
			}
		}
		root = obj(prop("f0", typ))
	case "wide":
		ps := make([]string, g.width)
		for i := range ps {
			ps[i] = prop(fmt.Sprint("f", i), leafType)
		}
		root = obj(ps...)
	case "enum":
		n := g.width * 3
		if head {
			n /= 2
		}
		syms := make([]string, n)
		for i := range syms {
			syms[i] = fmt.Sprintf("%q", fmt.Sprint("S", i))
		}
		root = obj(prop("f0", fmt.Sprintf(`{"enum": [%s]}`, strings.Join(syms, ", "))))
	case "names":
		ps := make([]string, 50)
		for i := range ps {
			ps[i] = prop(fmt.Sprint(g.name, i), leafType)
		}
		defs = append(defs, prop(g.name, obj(ps...)))
		root = obj(prop("f0", ref(g.name)))
	}
	root = strings.TrimSuffix(root, "}") + `, "$schema": "https://json-schema.org/draft/2020-12/schema"`
	if len(defs) > 0 {
		root += `, "$defs": {` + strings.Join(defs, ", ") + "}"
	}
	return root + "}\n"
}

func (g *adversary) proto(schema string, head bool) map[string]string {
	g.draw()
	files := map[string]string{}
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage adv;\n")
	lf := leaf("protobuf", head)
	switch g.shape {
	case "reuse":
		fmt.Fprintf(&b, "message Root { M%d f0 = 1; }\n", g.depth)
		for i := g.depth; i >= 1; i-- {
			fmt.Fprintf(&b, "message M%d {", i)
			for j := 0; j < g.fan; j++ {
				fmt.Fprintf(&b, " M%d f%d = %d;", i-1, j, j+1)
			}
			b.WriteString(" }\n")
		}
		fmt.Fprintf(&b, "message M0 { %s x = 1; }\n", lf)
	case "recursive":
		fmt.Fprintf(&b, "message Root { Node f0 = 1; Other other = 2; map<string, Node> byName = 3; }\n")
		fmt.Fprintf(&b, "message Node { %s x = 1; Node f0 = 2; repeated Other others = 3; }\n", lf)
		b.WriteString("message Other { Node back = 1; Other self = 2; }\n")
	case "nested", "unions":
		levels := min(g.depth*3, 30) // protoc refuses messages nested 32 deep
		b.WriteString("message Root { ")
		for i := 1; i <= levels; i++ {
			fmt.Fprintf(&b, "message N%d { ", i)
		}
		fmt.Fprintf(&b, "%s x = 1; ", lf)
		for i := levels; i >= 1; i-- {
			b.WriteString("} ")
			if i > 1 {
				fmt.Fprintf(&b, "N%d f0 = 1; oneof o%d { int32 v%d = 2; N%d w%d = 3; } ", i, i, i, i, i)
			}
		}
		b.WriteString("N1 f0 = 1; }\n")
	case "wide":
		b.WriteString("message Root {\n")
		for i := 0; i < g.width; i++ {
			fmt.Fprintf(&b, "  %s f%d = %d;\n", lf, i, i+1)
		}
		b.WriteString("}\n")
	case "enum":
		n := g.width * 3
		if head {
			n /= 2
		}
		b.WriteString("message Root { E f0 = 1; }\nenum E {\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "  E_%d = %d;\n", i, i)
		}
		b.WriteString("}\n")
	case "names":
		fmt.Fprintf(&b, "message Root { %s f0 = 1; }\nmessage %s {\n", g.name, g.name)
		for i := 0; i < 50; i++ {
			fmt.Fprintf(&b, "  %s %s%d = %d;\n", lf, g.name, i, i+1)
		}
		b.WriteString("}\n")
	case "files":
		// A chain of files, each reusing the previous file's message fan times.
		n := 2 + g.depth
		for i := 0; i < n; i++ {
			var f strings.Builder
			fmt.Fprintf(&f, "syntax = \"proto3\";\npackage adv.p%d;\n", i)
			if i == 0 {
				fmt.Fprintf(&f, "message M { %s x = 1; }\n", lf)
			} else {
				fmt.Fprintf(&f, "import \"%s/p%d.proto\";\nmessage M {", g.dir, i-1)
				for j := 0; j < g.fan; j++ {
					fmt.Fprintf(&f, " adv.p%d.M f%d = %d;", i-1, j, j+1)
				}
				f.WriteString(" }\n")
			}
			files[fmt.Sprintf("p%d.proto", i)] = f.String()
		}
		fmt.Fprintf(&b, "import \"%s/p%d.proto\";\nmessage Root { adv.p%d.M f0 = 1; }\n", g.dir, n-1, n-1)
	}
	files[schema] = b.String()
	return files
}
