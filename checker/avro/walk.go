package avro

import (
	"strconv"

	"github.com/hamba/avro/v2"
)

// side is one schema's element at the place being compared.
type side struct {
	doc  *Schema
	s    avro.Schema // dereferenced
	ptr  string      // JSON pointer of the element in doc (a named type: its definition)
	path string      // dotted path of the field the element belongs to ("" at the root)
	// union is the union the element is a branch of, if any (for messages).
	union avro.Schema
}

// at returns the side for a child type t written at pointer ptr (inside the same
// document), belonging to field path.
func (sd side) at(t avro.Schema, ptr, path string) side {
	return side{doc: sd.doc, s: deref(t), ptr: sd.doc.pointerOf(t, ptr), path: path}
}

// branch returns the side for branch i (type b) of the union at sd.
func (sd side) branch(i int, b avro.Schema) side {
	c := sd.at(b, sd.ptr+"/"+strconv.Itoa(i), sd.path)
	c.union = sd.s
	return c
}

// pair is a reader element and a writer element the walker compares.
type pair struct {
	r, w side
	// loc is the location the reference implementation (Java's SchemaCompatibility)
	// reports: reader field indexes and writer union branch indexes.
	loc string
	// field is the reader field that has no writer counterpart (READER_FIELD_MISSING_DEFAULT_VALUE).
	field      string
	fieldIndex int
}

// issue is one incompatibility found by a rule, before it becomes a checker.Finding.
type issue struct {
	rule string
	loc  string // reference location
	// detail is the reference implementation's message, kept for the reference tests.
	detail string
	r, w   side
	// suffix is appended to the chosen side's pointer ("/name", "/symbols", "/size").
	suffix string
	// readerOnly marks an element that exists only on the reader side.
	readerOnly bool
	field      string
	symbols    []string
}

// maxIssues bounds what one reader/writer comparison reports (a named type reused at
// every level of a deep tree would otherwise multiply its findings exponentially).
const maxIssues = 10_000

type memoKey struct{ r, w avro.NamedSchema }

type memoEntry struct {
	inProgress bool
	loc        string
	rpath      string
	wpath      string
	issues     []issue
}

// walker pairs reader and writer elements and applies the rules to each pair. Named
// pairs are memoised: a pair met again while still in progress is a recursion and
// counts as compatible (as in the reference implementation); a pair met again after
// it finished reuses its issues, re-rooted at the new place.
type walker struct {
	ix    *ruleIndex
	memo  map[memoKey]*memoEntry
	count int
}

func newWalker(ix *ruleIndex) *walker { return &walker{ix: ix, memo: map[memoKey]*memoEntry{}} }

// resolveCounted checks that data written with writer can be read with reader, and
// reports whether the issues stopped at maxIssues.
func resolveCounted(ix *ruleIndex, reader, writer *Schema) ([]issue, bool) {
	w := newWalker(ix)
	r := side{doc: reader, s: deref(reader.root), ptr: reader.pointerOf(reader.root, "")}
	wr := side{doc: writer, s: deref(writer.root), ptr: writer.pointerOf(writer.root, "")}
	issues := w.compat(pair{r: r, w: wr, loc: ""})
	return issues, w.count >= maxIssues
}

func (w *walker) compat(p pair) []issue {
	rn, rok := p.r.s.(avro.NamedSchema)
	wn, wok := p.w.s.(avro.NamedSchema)
	if !rok || !wok {
		return w.calc(p)
	}
	key := memoKey{rn, wn}
	if e, ok := w.memo[key]; ok {
		if e.inProgress {
			return nil
		}
		return w.rebase(e, p)
	}
	e := &memoEntry{inProgress: true, loc: p.loc, rpath: p.r.path, wpath: p.w.path}
	w.memo[key] = e
	e.issues = w.calc(p)
	e.inProgress = false
	return e.issues
}

// rebase moves memoised issues from where they were found to the place p, within the
// walker's bound on issues (a type reused at every level of a deep tree would
// otherwise multiply them exponentially).
func (w *walker) rebase(e *memoEntry, p pair) []issue {
	n := min(len(e.issues), maxIssues-w.count)
	if n <= 0 {
		return nil
	}
	w.count += n
	out := make([]issue, n)
	for i, is := range e.issues[:n] {
		is.loc = p.loc + is.loc[len(e.loc):]
		is.r.path = rebasePath(p.r.path, e.rpath, is.r.path)
		is.w.path = rebasePath(p.w.path, e.wpath, is.w.path)
		out[i] = is
	}
	return out
}

func rebasePath(now, then, path string) string {
	if len(path) < len(then) || path[:len(then)] != then {
		return path
	}
	rest := path[len(then):]
	if now == "" && len(rest) > 0 && rest[0] == '.' {
		rest = rest[1:]
	}
	if then == "" && now != "" && rest != "" {
		return now + "." + rest
	}
	return now + rest
}

// add appends what a rule reported, up to maxIssues.
func (w *walker) add(out []issue, found ...issue) []issue {
	for _, f := range found {
		if w.count >= maxIssues {
			return out
		}
		w.count++
		out = append(out, f)
	}
	return out
}

// calc compares one pair: same types by their element rules and children, a writer
// union branch by branch, a reader union by its first matching branch, anything else
// by the promotion rules.
func (w *walker) calc(p pair) []issue {
	rt, wt := kindOf(p.r.s), kindOf(p.w.s)
	var out []issue
	if rt == wt {
		for _, rl := range w.ix.rules(siteSameType, rt) {
			out = w.add(out, rl.check(w, p)...)
		}
		switch rt {
		case avro.Array:
			ri, wi := p.r.s.(*avro.ArraySchema).Items(), p.w.s.(*avro.ArraySchema).Items()
			out = append(out, w.compat(pair{
				r:   p.r.at(ri, p.r.ptr+"/items", p.r.path),
				w:   p.w.at(wi, p.w.ptr+"/items", p.w.path),
				loc: p.loc + "/items",
			})...)
		case avro.Map:
			rv, wv := p.r.s.(*avro.MapSchema).Values(), p.w.s.(*avro.MapSchema).Values()
			out = append(out, w.compat(pair{
				r:   p.r.at(rv, p.r.ptr+"/values", p.r.path),
				w:   p.w.at(wv, p.w.ptr+"/values", p.w.path),
				loc: p.loc + "/values",
			})...)
		case avro.Record:
			out = append(out, w.fields(p)...)
		case avro.Union:
			for j, b := range p.w.s.(*avro.UnionSchema).Types() {
				bp := pair{r: p.r, w: p.w.branch(j, b), loc: p.loc + "/" + strconv.Itoa(j)}
				if len(w.compat(bp)) > 0 {
					out = w.add(out, w.ix.byID[ruleMissingUnionBranch].check(w, bp)...)
				}
			}
		}
		return out
	}
	if wt == avro.Union {
		for j, b := range p.w.s.(*avro.UnionSchema).Types() {
			out = append(out, w.compat(pair{r: p.r, w: p.w.branch(j, b), loc: p.loc + "/" + strconv.Itoa(j)})...)
		}
		return out
	}
	if rt == avro.Union {
		for i, b := range p.r.s.(*avro.UnionSchema).Types() {
			if len(w.compat(pair{r: p.r.branch(i, b), w: p.w, loc: p.loc})) == 0 {
				return nil
			}
		}
		return w.add(out, w.ix.byID[ruleMissingUnionBranch].check(w, p)...)
	}
	for _, rl := range w.ix.rules(siteTypeDiffers, rt) {
		out = w.add(out, rl.check(w, p)...)
	}
	return out
}

// fields pairs each reader field with the writer field of the same name or one of the
// reader field's aliases; a reader field without one must have a default.
func (w *walker) fields(p pair) []issue {
	var out []issue
	rrec, wrec := p.r.s.(*avro.RecordSchema), p.w.s.(*avro.RecordSchema)
	ri, wi := p.r.doc.recordInfo(rrec), p.w.doc.recordInfo(wrec)
	rfields, wfields := rrec.Fields(), wrec.Fields()
	for i, name := range ri.names {
		if w.count >= maxIssues {
			return out // the list is full: nothing further would be kept
		}
		var j int
		if i < len(wi.names) && wi.names[i] == name {
			j = i // the common case: the field kept its place
		} else {
			j = lookupWriterField(wi, name, rfields[i].Aliases())
		}
		if j >= 0 {
			// The common case: both primitive and readable; nothing can go wrong, so
			// build no locations.
			if rt, wt := ri.prims[i], wi.prims[j]; rt != 0 && wt != 0 && readable[wt][rt] {
				continue
			}
		}
		rf := rfields[i]
		idx := strconv.Itoa(i)
		rpath := joinPath(p.r.path, rf.Name())
		if j < 0 {
			fp := pair{r: p.r, w: p.w, loc: p.loc + "/fields/" + idx, field: rf.Name(), fieldIndex: i}
			fp.r.path = rpath
			fp.r.ptr = p.r.ptr + "/fields/" + idx
			for _, rl := range w.ix.rules(siteFieldUnmatched, "") {
				out = w.add(out, rl.check(w, fp)...)
			}
			continue
		}
		wf := wfields[j]
		out = append(out, w.compat(pair{
			r:   p.r.at(rf.Type(), p.r.ptr+"/fields/"+idx+"/type", rpath),
			w:   p.w.at(wf.Type(), p.w.ptr+"/fields/"+strconv.Itoa(j)+"/type", joinPath(p.w.path, wf.Name())),
			loc: p.loc + "/fields/" + idx + "/type",
		})...)
	}
	return out
}

// recordInfo returns the field summary of a record of this schema.
func (s *Schema) recordInfo(t *avro.RecordSchema) *recordInfo {
	if ri, ok := s.records[t]; ok {
		return ri
	}
	return newRecordInfo(t)
}

// lookupWriterField finds the writer field a reader field reads: by name first, then
// by the reader field's aliases. It returns -1 when there is none.
func lookupWriterField(wi *recordInfo, name string, aliases []string) int {
	find := func(n string) int {
		if wi.byName != nil {
			if j, ok := wi.byName[n]; ok {
				return j
			}
			return -1
		}
		for j, wn := range wi.names {
			if wn == n {
				return j
			}
		}
		return -1
	}
	if j := find(name); j >= 0 {
		return j
	}
	for _, a := range aliases {
		if j := find(a); j >= 0 {
			return j
		}
	}
	return -1
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// kindOf is a schema's type with error records counted as records.
func kindOf(s avro.Schema) avro.Type {
	t := s.Type()
	if t == avro.Error {
		return avro.Record
	}
	return t
}
