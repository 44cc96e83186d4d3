package contract

import (
	"fmt"
	"path"
	"strings"
)

// loadConsumers reads every consumers/<name>.yaml of a subject, sorted by name.
func (l *loader) loadConsumers(s *Subject, ds *Diagnostics) []*Consumer {
	dir := s.Dir + "/" + ConsumersDir
	entries, ok := l.listDir(dir)
	if !ok {
		return nil
	}
	var out []*Consumer
	for _, e := range entries {
		p := dir + "/" + e.Name
		f := &file{path: p, diags: ds}
		switch {
		case e.Symlink:
			f.report(Pos{1, 1}, CodeSymlink, "%s is a symbolic link; the loader never follows links. Replace it with the real file.", p)
			continue
		case e.Dir || !strings.HasSuffix(e.Name, ".yaml"):
			if !isDoc(e.Name) {
				hint := ""
				if strings.HasSuffix(e.Name, ".yml") {
					hint = fmt.Sprintf(" Rename it to %s.yaml.", strings.TrimSuffix(e.Name, ".yml"))
				}
				f.report(Pos{1, 1}, CodeLayout, "consumers/ holds one <consumer>.yaml file per consumer; %s is not one.%s", e.Name, hint)
			}
			continue
		}
		if c := l.loadConsumer(f, s, strings.TrimSuffix(e.Name, ".yaml")); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// loadConsumer reads one consumer file.
func (l *loader) loadConsumer(f *file, s *Subject, stem string) *Consumer {
	data, _, ok := l.read(f, f.path, MaxYAMLBytes)
	if !ok {
		return nil
	}
	o := f.parse(data)
	if o == nil {
		return nil
	}
	o.expect("a consumer file", []string{"name", "owner", "kind", "reads"}, []string{"system", "description", "produces", "state", "signoff", "openlineage", "group", "sql"})
	c := &Consumer{File: f.path, Subject: s.Subject, KeyPos: o.keys, Name: stem}
	if v, ok := o.str("name"); ok {
		switch {
		case !reSlug.MatchString(v):
			f.report(o.valuePos("name"), CodeInvalidValue, "consumer name %q must be lower case letters, digits, '-' or '_'.", v)
		case v != stem:
			f.report(o.valuePos("name"), CodeNameMismatch, "consumer name %q does not match the file name %s.yaml; make them the same.", v, stem)
		}
	}
	if v, ok := o.str("owner"); ok && l.checkTeam(f, o.valuePos("owner"), v, "owner") {
		c.Owner = v
	}
	if v, ok := o.str("kind"); ok && o.oneOfValue("kind", v, ConsumerKinds) {
		c.Kind = v
	}
	c.System, _ = o.str("system")
	c.Description, _ = o.str("description")
	c.Group = consumerGroup(f, o, s)
	paths := s.FieldPaths()
	if c.Group != "" && s.Group != nil && c.Group != s.Group.Value {
		paths = nil // it reads an earlier group, whose schema the tree no longer holds
	}
	if reads, ok := o.strList("reads"); ok {
		if len(reads) == 0 {
			f.report(o.valuePos("reads"), CodeInvalidValue, "reads is empty; list the fields this consumer reads, or [\"*\"] for every field.")
		}
		for _, r := range reads {
			c.Reads = append(c.Reads, r.val)
			c.ReadPos = append(c.ReadPos, r.pos)
			if r.val != "*" && paths != nil && !s.HasFieldPath(r.val) {
				f.reportField(r.pos, r.val, CodeUnknownField, "reads field %q, which does not exist in %s.%s", r.val, s.SchemaFile, fieldHint(r.val, paths))
			}
		}
	}
	l.loadProduces(f, o, s, c, paths)
	c.State = jobState(f, o, s)
	c.OpenLineage = openLineageJob(f, o)
	l.jobSQL(f, o, c)
	if v, ok := o.str("signoff"); ok && o.oneOfValue("signoff", v, []string{SignoffRequired}) {
		c.Signoff = v
	}
	return c
}

// loadProduces reads the lineage mappings; the targets are checked in crossCheck.
func (l *loader) loadProduces(f *file, o *object, s *Subject, c *Consumer, paths []string) {
	po := o.child("produces", "produces")
	if po == nil {
		return
	}
	c.Produces = map[string]map[string][]string{}
	for _, target := range po.names() {
		c.KeyPos["produces."+target] = po.keys[target]
		mo := po.child(target, fmt.Sprintf("the lineage of %s", target))
		if mo == nil {
			continue
		}
		mapping := map[string][]string{}
		pending := pendingProduce{file: f.path, from: s, target: target, tpos: po.keys[target]}
		for _, out := range mo.names() {
			pending.outputs = append(pending.outputs, item{out, mo.keys[out]})
			inputs, ok := mo.strList(out)
			if !ok {
				continue
			}
			for _, in := range inputs {
				mapping[out] = append(mapping[out], in.val)
				if paths != nil && !s.HasFieldPath(in.val) {
					f.reportField(in.pos, in.val, CodeUnknownField, "lineage input %q does not exist in %s.%s", in.val, s.SchemaFile, fieldHint(in.val, paths))
				}
			}
		}
		c.Produces[target] = mapping
		l.mu.Lock()
		l.produces = append(l.produces, pending)
		l.mu.Unlock()
	}
}

// MaxSQLBytes bounds one Flink SQL script a consumer file's sql: names.
const MaxSQLBytes = 1 << 20

// jobSQL reads sql:, the job's Flink SQL scripts (paths from the repository root, in
// the order the job runs them), and their text: a schema change is then also judged
// against their DDL (lineage check).
func (l *loader) jobSQL(f *file, o *object, c *Consumer) {
	paths, ok := o.strList("sql")
	if !ok {
		return
	}
	for _, p := range paths {
		clean := path.Clean(p.val)
		switch {
		case p.val == "" || path.IsAbs(p.val) || clean != p.val || strings.HasPrefix(clean, "../") || !strings.HasSuffix(clean, ".sql"):
			f.report(p.pos, CodeInvalidValue, "sql names %q; give the path of a .sql file from the repository root, e.g. jobs/flink/%s.sql.", p.val, c.Name)
			continue
		}
		data, found, ok := l.read(f, clean, MaxSQLBytes)
		if !found {
			f.report(p.pos, CodeMissingFile, "sql names %s, which does not exist; correct the path or remove it.", clean)
		}
		if !ok {
			continue
		}
		c.SQL = append(c.SQL, clean)
		c.SQLText = append(c.SQLText, string(data))
	}
}
