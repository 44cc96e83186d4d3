package jsonschema

import (
	"slices"
	"strings"

	"github.com/contractbot/contractbot/checker"
)

// difference is one of the registry's difference types found between an original
// schema and its update, at the registry's path ("#/properties/foo").
type difference struct {
	typ  string
	path string
	// orig and upd are the schemas the difference is about (either may be nil); key
	// is the keyword under them it names ("maxLength"), or "".
	orig, upd *node
	key       string
}

// pairKey is a compared pair; comparisons are memoized by pair.
type pairKey [2]*node

// MaxCompareSteps bounds the schema pairs one comparison visits: combinations of
// many subschemas compared with many (every pair is tried, as the registry does) could
// otherwise take hours. Past it the comparison stops with COMPARISON_BUDGET_EXCEEDED.
const MaxCompareSteps = 250_000

// cmpState is shared by every context of one comparison.
type cmpState struct {
	memo       map[pairKey][]difference
	inProgress map[pairKey]bool
	// seed holds the pairs an earlier pass found incompatible: a recursion that meets
	// one of them again takes its differences instead of assuming compatibility.
	seed map[pairKey][]difference
	// optimistic is set when a recursion was assumed compatible.
	optimistic bool
	steps      int
	exceeded   bool
}

// cmpCtx collects differences under a path, as the registry's Context does.
type cmpCtx struct {
	st    *cmpState
	path  []string
	diffs []difference
	// incompatible: an incompatible difference is among diffs (kept there even when
	// the list is full, so compatible() stays true to what was found).
	incompatible bool
}

// maxDifferences bounds the differences one context keeps: a schema reused under
// every property of a deep tree would otherwise repeat its differences under each
// path, 2^depth of them. The level loop lists at most checker.MaxFindings anyway.
const maxDifferences = checker.MaxFindings

// keep appends differences up to maxDifferences. Past it an incompatible difference
// still replaces the last one kept when none kept is incompatible.
func (c *cmpCtx) keep(ds ...difference) {
	for _, d := range ds {
		bad := !compatibleChange(d.typ)
		switch {
		case len(c.diffs) < maxDifferences:
			c.diffs = append(c.diffs, d)
			c.incompatible = c.incompatible || bad
		case bad && !c.incompatible:
			c.diffs[len(c.diffs)-1] = d
			c.incompatible = true
		}
	}
}

// differences compares an original schema with its update the way the Confluent
// Schema Registry's SchemaDiff does and returns every difference found.
func differences(orig, upd *node) []difference {
	// As the registry does, a pair met again while being compared (a recursion) is
	// first assumed compatible; the comparison is repeated, feeding back the pairs
	// found incompatible, until that set no longer changes. The set only grows, so
	// this ends; a pass that assumed nothing is exact (the usual, non-recursive case).
	seed := map[pairKey][]difference{}
	steps := 0
	for {
		st := &cmpState{memo: map[pairKey][]difference{}, inProgress: map[pairKey]bool{}, seed: seed, steps: steps}
		c := &cmpCtx{st: st}
		compare(c, orig, upd)
		if st.exceeded {
			return append(c.diffs, difference{typ: ComparisonBudgetExceeded, path: "#/", orig: orig, upd: upd})
		}
		next := map[pairKey][]difference{}
		for k, ds := range st.memo {
			if slices.ContainsFunc(ds, func(d difference) bool { return !compatibleChange(d.typ) }) {
				next[k] = ds
			}
		}
		if !st.optimistic || sameKeys(next, seed) {
			return c.diffs
		}
		seed, steps = next, st.steps
	}
}

func sameKeys(a, b map[pairKey][]difference) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

func (c *cmpCtx) sub() *cmpCtx { return &cmpCtx{st: c.st, path: slices.Clone(c.path)} }

// compareSub compares a with b in a sub-context and returns it, for the caller
// to keep what it found or not.
func (c *cmpCtx) compareSub(a, b *node) *cmpCtx {
	s := c.sub()
	compare(s, a, b)
	return s
}

// push enters path segments and returns the depth to pop back to.
func (c *cmpCtx) push(seg ...string) int {
	n := len(c.path)
	c.path = append(c.path, seg...)
	return n
}

func (c *cmpCtx) pop(n int) { c.path = c.path[:n] }

func (c *cmpCtx) pathWith(seg string) string {
	p := c.path
	if seg != "" {
		p = append(slices.Clone(p), seg)
	}
	return "#/" + strings.Join(p, "/")
}

// add records a difference at the current path (plus seg).
func (c *cmpCtx) add(typ, seg string, o, u *node, key string) {
	c.keep(difference{typ: typ, path: c.pathWith(seg), orig: o, upd: u, key: key})
}

// addRebased adds differences found relative to a pair under the current path.
func (c *cmpCtx) addRebased(ds []difference) {
	if len(c.path) == 0 {
		c.keep(ds...)
		return
	}
	prefix := c.pathWith("")
	for _, d := range ds {
		if len(d.path) > 2 {
			d.path = prefix + "/" + d.path[2:]
		} else {
			d.path = prefix
		}
		c.keep(d)
	}
}

// compatible reports whether every difference so far is a compatible change.
func (c *cmpCtx) compatible() bool {
	for _, d := range c.diffs {
		if !compatibleChange(d.typ) {
			return false
		}
	}
	return true
}

// compare is SchemaDiff.compare: absent schemas, then references followed, then the
// pair compared once (a pair met again while being compared is a recursion, taken as
// compatible).
func compare(c *cmpCtx, o, u *node) {
	switch {
	case o == nil && u == nil:
		return
	case o == nil:
		c.add(SchemaAdded, "", nil, u, "")
		return
	case u == nil:
		c.add(SchemaRemoved, "", o, nil, "")
		return
	}
	o, u = deref(o), deref(u)
	if o == nil || u == nil {
		return
	}
	if c.st.steps++; c.st.steps > MaxCompareSteps {
		c.st.exceeded = true
		return
	}
	if o.leaf() && u.leaf() {
		// Nothing below a leaf can lead back to it: compare in place.
		compareTypes(c, o, u)
		return
	}
	key := pairKey{o, u}
	if ds, ok := c.st.memo[key]; ok {
		c.addRebased(ds)
		return
	}
	if c.st.inProgress[key] {
		if ds, ok := c.st.seed[key]; ok {
			c.addRebased(ds)
			return
		}
		c.st.optimistic = true
		return
	}
	c.st.inProgress[key] = true
	s := &cmpCtx{st: c.st}
	compareTypes(s, o, u)
	delete(c.st.inProgress, key)
	c.st.memo[key] = s.diffs
	c.addRebased(s.diffs)
}

// compareTypes compares two dereferenced schemas: a schema against a combination
// (the update widened to a sum, or the original narrowed from a product), then kinds,
// annotations and the keywords of the kind.
func compareTypes(c *cmpCtx, o, u *node) {
	switch {
	case o.kind != kCombined && u.kind == kCombined:
		sum := u.crit == "anyOf" || u.crit == "oneOf"
		if matchSub(c, o, u, u, sum, SumTypeExtended, func(sub *node) *cmpCtx { return c.compareSub(o, sub) }) {
			return
		}
	case o.kind == kCombined && u.kind != kCombined:
		if matchSub(c, o, u, o, o.crit == "allOf", ProductTypeNarrowed, func(sub *node) *cmpCtx { return c.compareSub(sub, u) }) {
			return
		}
	}
	if o.kind != u.kind {
		if o.kind == kFalse || u.isEmptyLike() {
			return
		}
		c.add(TypeChanged, "", o, u, "")
		return
	}
	if o.hasID != u.hasID || o.id != u.id {
		c.add(IDChanged, "", o, u, idKeyword(u))
	}
	if o.hasTitle != u.hasTitle || o.title != u.title {
		c.add(TitleChanged, "", o, u, "title")
	}
	if o.hasDesc != u.hasDesc || o.desc != u.desc {
		c.add(DescriptionChanged, "", o, u, "description")
	}
	if o.hasDef != u.hasDef || o.def != u.def {
		c.add(DefaultChanged, "", o, u, "default")
	}
	switch o.kind {
	case kString:
		compareString(c, o, u)
	case kNumber:
		compareNumber(c, o, u)
	case kConst:
		if o.constVal != u.constVal {
			c.add(EnumArrayChanged, "const", o, u, "const")
		}
	case kEnum:
		compareEnum(c, o, u)
	case kCombined:
		compareCombined(c, o, u)
	case kNot:
		s := c.sub()
		s.push("not")
		compare(s, u.not, o.not) // reversed: the update may refuse less
		if s.compatible() {
			c.add(NotTypeNarrowed, "not", o, u, "not")
		} else {
			c.add(NotTypeExtended, "not", o, u, "not")
		}
	case kObject:
		compareObject(c, o, u)
	case kArray:
		compareArray(c, o, u)
	}
}

// matchSub compares a plain schema with the subschemas of comb, the combination
// on the other side, through cmp: a lone subschema stands for the combination; of
// several, when any one would do (each is true), the first compatible one counts
// and rule is added. It keeps the findings of the match and reports whether there
// was one.
func matchSub(c *cmpCtx, o, u, comb *node, each bool, rule string, cmp func(sub *node) *cmpCtx) bool {
	if len(comb.subs) == 1 {
		s := cmp(comb.subs[0])
		if s.compatible() {
			c.keep(s.diffs...)
			return true
		}
		return false
	}
	if !each {
		return false
	}
	for _, sub := range comb.subs {
		if s := cmp(sub); s.compatible() {
			c.keep(s.diffs...)
			c.add(rule, "", o, u, "")
			return true
		}
	}
	return false
}

func idKeyword(n *node) string {
	if n.doc.draft == 4 {
		return "id"
	}
	return "$id"
}

// compareCombined is CombinedSchemaDiff: the criteria, the number of distinct
// subschemas, then a maximum matching of original subschemas to compatible update
// subschemas; a matching that leaves a subschema of the smaller side unmatched is
// COMBINED_TYPE_SUBSCHEMAS_CHANGED.
func compareCombined(c *cmpCtx, o, u *node) {
	typ := ""
	switch {
	case o.crit == u.crit:
	case u.crit == "anyOf",
		len(o.subs) == 1 && len(u.subs) == 1,
		len(o.subs) == 1 && u.crit == "oneOf",
		len(u.subs) == 1 && o.crit == "allOf":
		typ = CombinedTypeExtended
	default:
		typ = CombinedTypeChanged
	}
	if typ != "" {
		c.add(typ, "", o, u, u.crit)
	}
	if typ == CombinedTypeChanged {
		return
	}
	os, us := distinct(o.subs), distinct(u.subs)
	switch {
	case len(os) < len(us):
		if u.crit == "allOf" {
			c.add(ProductTypeExtended, "", o, u, u.crit)
		} else {
			c.add(SumTypeExtended, "", o, u, u.crit)
		}
	case len(os) > len(us):
		if o.crit == "anyOf" || o.crit == "oneOf" {
			c.add(SumTypeNarrowed, "", o, u, u.crit)
		} else {
			c.add(ProductTypeNarrowed, "", o, u, u.crit)
		}
	}
	edges := make([][][]difference, len(os))
	adj := make([][]int, len(os))
	for i, a := range os {
		edges[i] = make([][]difference, len(us))
		depth := c.push(o.crit + "/" + itoa(i))
		for j, b := range us {
			if s := c.compareSub(a, b); s.compatible() {
				edges[i][j] = s.diffs
				adj[i] = append(adj[i], j)
			}
		}
		c.pop(depth)
	}
	match := maxMatching(len(us), adj)
	matched := 0
	for i, j := range match {
		if j >= 0 {
			matched++
			c.keep(edges[i][j]...)
		}
	}
	if matched < min(len(os), len(us)) {
		c.add(CombinedTypeSubschemasChanged, "", o, u, u.crit)
	}
}

// distinct drops subschemas whose text equals an earlier one's (the kinds one schema
// object's keywords make share its text, so the kind is part of the key).
func distinct(subs []*node) []*node {
	var out []*node
	seen := map[string]bool{}
	for _, s := range subs {
		k := label(s) + "|" + canonical(s.src)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, s)
	}
	return out
}

// maxMatching returns, for each left vertex, its partner on the right in a maximum
// matching of the bipartite graph adj (augmenting paths), or -1.
func maxMatching(right int, adj [][]int) []int {
	matchL := make([]int, len(adj))
	matchR := make([]int, right)
	for i := range matchL {
		matchL[i] = -1
	}
	for j := range matchR {
		matchR[j] = -1
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for _, j := range adj[i] {
			if seen[j] {
				continue
			}
			seen[j] = true
			if matchR[j] < 0 || try(matchR[j], seen) {
				matchL[i], matchR[j] = j, i
				return true
			}
		}
		return false
	}
	for i := range adj {
		try(i, make([]bool, right))
	}
	return matchL
}
