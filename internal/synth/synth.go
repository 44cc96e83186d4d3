// Package synth generates synthetic contract repositories for tests and benchmarks: a
// tree that validates under the agreed file format (docs/contract-format.md; teams,
// subjects in Avro and Protobuf, consumers with field-level reads and multi-hop
// lineage, calendar entries and freezes) and a history of commits on branch main in
// which later commits edit a few schemas, consumers or contracts each.
//
// Generation is deterministic for a seed. It writes Git objects directly (no worktree
// operations): objects are built in memory, unchanged subtrees are reused between
// commits, and everything is written as one packfile at the end, so 10,000 subjects and
// 5,000 commits take seconds, not minutes.
package synth

import (
	"crypto/sha1"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Options says what to generate. Zero values take the defaults noted.
type Options struct {
	Subjects            int       // contract folders (default 100); includes the shared common-types subject when ProtobufShare > 0
	Commits             int       // commits on main (default 1: the initial tree only)
	ConsumersPerSubject int       // consumer files per subject (default 2; negative: none)
	Seed                int64     // random seed: same seed and options, same repository
	Domains             int       // domain folders (default Subjects/50, at least 1, at most 1000)
	ProtobufShare       float64   // share of subjects in Protobuf, 0..1 (default 0: all Avro)
	Checkout            bool      // also write the final tree (and a matching Git index) into dir
	Start               time.Time // time of the first commit (default 2026-01-05T09:00:00Z)
}

// Stats says what was generated.
type Stats struct {
	Subjects      int           // contract folders
	Avro          int           // Avro subjects
	Protobuf      int           // Protobuf subjects (including the common-types subject)
	Consumers     int           // consumer files
	LineageEdges  int           // consumer `produces` entries
	Teams         int           // teams in teams.yaml
	CalendarFiles int           // calendar entries (freezes.yaml not counted)
	Commits       int           // commits on main
	Objects       int           // Git objects written
	Head          plumbing.Hash // the commit main points at (zero for WriteTree)
	Files         int           // files in the final tree
	Elapsed       time.Duration // wall time
}

const (
	// Branch is the branch Generate creates.
	Branch = "main"
	// ChainLength is the length of the lineage chains: consumer 0 of a subject at chain
	// position p < ChainLength-1 produces the next subject of the chain.
	ChainLength = 4
)

func (o Options) withDefaults() Options {
	if o.Subjects <= 0 {
		o.Subjects = 100
	}
	if o.Commits <= 0 {
		o.Commits = 1
	}
	if o.ConsumersPerSubject == 0 {
		o.ConsumersPerSubject = 2
	}
	if o.ConsumersPerSubject < 0 {
		o.ConsumersPerSubject = 0
	}
	if o.Domains <= 0 {
		o.Domains = o.Subjects / 50
	}
	o.Domains = max(1, min(o.Domains, 1000, o.Subjects))
	if o.ProtobufShare < 0 {
		o.ProtobufShare = 0
	}
	if o.ProtobufShare > 1 {
		o.ProtobufShare = 1
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	}
	return o
}

var (
	teamIDs = []string{"platform", "orders", "payments", "accounts", "inventory", "logistics", "marketing",
		"search", "pricing", "fraud", "catalog", "identity", "billing", "notifications", "risk",
		"data-warehouse", "analytics", "ml-platform", "growth", "support"}
	timezones  = []string{"Europe/Berlin", "America/New_York", "Asia/Shanghai", "UTC", "Asia/Kolkata"}
	domainWord = []string{"orders", "payments", "accounts", "inventory", "logistics", "marketing", "search",
		"pricing", "fraud", "catalog", "identity", "billing", "shipping", "reviews", "loyalty", "ads",
		"media", "messaging", "support", "risk", "checkout", "returns", "warehouse", "sellers"}
	entities = []string{"order", "payment", "user", "cart", "item", "shipment", "invoice", "refund", "session",
		"click", "coupon", "review", "seller", "parcel", "price", "stock", "ticket", "device", "campaign", "wallet"}
	events = []string{"created", "updated", "cancelled", "completed", "failed", "viewed", "shipped",
		"approved", "rejected", "expired", "opened", "scored"}
	extraNames = []string{"channel", "region", "source", "score", "retry_count", "tags", "locale", "campaign_id",
		"referrer", "latency_ms", "is_test", "priority", "discount", "version_tag", "partner_id", "segment",
		"weight_grams", "rating", "trace_id", "device_type"}
	enumSymbols = []string{"NEW", "PENDING", "ACTIVE", "DONE", "FAILED", "CANCELLED", "ON_HOLD", "ARCHIVED"}
	kinds       = []string{"flink-job", "spark-job", "kafka-streams", "service", "sink", "dashboard", "connector", "batch-job"}
	systems     = map[string]string{"flink-job": "flink", "spark-job": "spark", "kafka-streams": "kafka-streams",
		"service": "go", "sink": "clickhouse", "dashboard": "grafana", "connector": "kafka-connect", "batch-job": "airflow"}
	compats = []string{"BACKWARD", "BACKWARD", "BACKWARD", "BACKWARD", "BACKWARD_TRANSITIVE", "BACKWARD_TRANSITIVE",
		"FULL", "FULL_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "NONE"}
	calendarKinds = []string{"schema-change", "consumer-upgrade", "state-migration", "backfill"}
)

type consumer struct {
	name, owner, kind string
	reads             []string
	produces          []lineage // at most one output subject here
	descRev           int
}

type lineage struct {
	subject string
	fields  [][2]string // output field, input field (one input each)
}

type subject struct {
	idx                   int
	domain, name, subject string
	format, schemaFile    string
	compat, owner, tier   string
	common                bool // the shared common-types proto subject
	fields                []field
	extras                []field
	nextExtra             int
	docRev, descRev       int
	consumers             []*consumer
}

func (s *subject) folder() string { return "contracts/" + s.domain + "/" + s.name }

func (s *subject) allFields() []field { return append(append([]field(nil), s.fields...), s.extras...) }

func (s *subject) docText() string {
	d := fmt.Sprintf("%s events of the %s domain.", camel(s.name), s.domain)
	if s.docRev > 0 {
		d += fmt.Sprintf(" Revised (%d).", s.docRev)
	}
	return d
}

func (s *subject) protoPackage() string {
	return "acme." + ident(s.domain) + "." + ident(s.name) + ".v1"
}

// paths returns the subject's field paths, sorted.
func (s *subject) paths() []string {
	if s.common {
		return []string{"currency_code", "nanos", "units"}
	}
	var out []string
	for _, f := range s.allFields() {
		out = f.paths("", out)
	}
	sort.Strings(out)
	return out
}

// gen holds the whole generated state.
type gen struct {
	o        Options
	rng      *rand.Rand
	subjects []*subject
	chained  []*subject // non-common subjects, in index order
	root     *dir
	store    *objStore // nil: no Git objects (WriteTree)
	commits  int
	head     plumbing.Hash
	stats    Stats
}

func newGen(o Options, withGit bool) *gen {
	g := &gen{o: o, rng: rand.New(rand.NewPCG(uint64(o.Seed), 0x5eed5eed)), root: newDir()}
	if withGit {
		g.store = newObjStore()
	}
	return g
}

func (g *gen) pick(xs []string) string { return xs[g.rng.IntN(len(xs))] }

// baseFields are in every non-common schema, so lineage can map them between subjects.
func (g *gen) baseFields() []field {
	n := 2 + g.rng.IntN(4)
	syms := append([]string(nil), enumSymbols[:n+1]...)
	return []field{
		{name: "event_id", kind: kString, doc: "Unique id of the event."},
		{name: "occurred_at", kind: kTimestamp, doc: "When it happened (UTC)."},
		{name: "amount", kind: kDecimal, doc: "Amount in the order currency."},
		{name: "status", kind: kEnum, symbols: syms},
		{name: "customer", kind: kRecord, doc: "Who.", children: []field{
			{name: "id", kind: kString},
			{name: "country", kind: kOptString},
			{name: "address", kind: kRecord, children: []field{
				{name: "city", kind: kString},
				{name: "zip", kind: kString},
			}},
		}},
		{name: "items", kind: kArrayRecord, children: []field{
			{name: "sku", kind: kString},
			{name: "quantity", kind: kInt},
			{name: "price", kind: kDecimal},
		}},
		{name: "note", kind: kOptString, doc: "Free text."},
	}
}

func (g *gen) extraFields() []field {
	n := 2 + g.rng.IntN(6)
	perm := g.rng.Perm(len(extraNames))[:n]
	sort.Ints(perm)
	var out []field
	scalar := []fieldKind{kString, kInt, kLong, kDouble, kBool, kTimestamp, kOptString, kMapString}
	for _, i := range perm {
		out = append(out, field{name: extraNames[i], kind: scalar[g.rng.IntN(len(scalar))]})
	}
	return out
}

func (g *gen) plan() {
	o := g.o
	domains := make([]string, o.Domains)
	for i := range domains {
		domains[i] = domainWord[i%len(domainWord)]
		if i >= len(domainWord) {
			domains[i] += fmt.Sprint(i / len(domainWord))
		}
	}
	start := 0
	if o.ProtobufShare > 0 && o.Subjects >= 2 {
		g.subjects = append(g.subjects, &subject{idx: 0, domain: "common", name: "types",
			subject: "common.types-value", format: "protobuf", schemaFile: "common.proto",
			compat: "FULL_TRANSITIVE", owner: "platform", tier: "core", common: true})
		start = 1
	}
	for i := start; i < o.Subjects; i++ {
		d := domains[i%len(domains)]
		name := fmt.Sprintf("%s-%s-%d", g.pick(entities), g.pick(events), i)
		s := &subject{idx: i, domain: d, name: name, subject: d + "." + name + "-value",
			compat: g.pick(compats), owner: teamIDs[1+(i%len(domains))%(len(teamIDs)-1)], tier: "standard"}
		if g.rng.IntN(5) == 0 {
			s.tier = "core"
		}
		if g.rng.Float64() < o.ProtobufShare {
			s.format, s.schemaFile = "protobuf", ident(name)+".proto"
		} else {
			s.format, s.schemaFile = "avro", ident(name)+".avsc"
		}
		s.fields = append(g.baseFields(), g.extraFields()...)
		g.subjects = append(g.subjects, s)
		g.chained = append(g.chained, s)
	}
	for ci, s := range g.chained {
		paths := s.paths()
		for k := 0; k < o.ConsumersPerSubject; k++ {
			kind := kinds[g.rng.IntN(len(kinds))]
			owner := teamIDs[1+g.rng.IntN(len(teamIDs)-1)]
			c := &consumer{name: fmt.Sprintf("%s-%s-%d", owner, strings.SplitN(kind, "-", 2)[0], k), owner: owner, kind: kind}
			if g.rng.IntN(20) == 0 {
				c.reads = []string{"*"}
			} else {
				n := 1 + g.rng.IntN(5)
				set := map[string]bool{}
				for j := 0; j < n; j++ {
					set[paths[g.rng.IntN(len(paths))]] = true
				}
				if k == 0 && ci%ChainLength != ChainLength-1 && ci+1 < len(g.chained) {
					set["event_id"], set["amount"], set["customer.id"] = true, true, true
				}
				for p := range set {
					c.reads = append(c.reads, p)
				}
				sort.Strings(c.reads)
			}
			if k == 0 && ci%ChainLength != ChainLength-1 && ci+1 < len(g.chained) {
				c.produces = []lineage{{subject: g.chained[ci+1].subject,
					fields: [][2]string{{"amount", "amount"}, {"customer.id", "customer.id"}, {"event_id", "event_id"}}}}
			}
			s.consumers = append(s.consumers, c)
		}
	}
}

// ---- file rendering ----

func q(s string) string { return fmt.Sprintf("%q", s) }

func (g *gen) teamsYAML() []byte {
	var b strings.Builder
	b.WriteString("# yaml-language-server: $schema=../docs/schemas/teams.schema.json\nteams:\n")
	for i, id := range teamIDs {
		fmt.Fprintf(&b, "  %s:\n    name: %s\n    github: [%s]\n    slack: %s\n    timezone: %s\n",
			id, camel(id)+" Team", q("@acme/"+id), q("#"+id), timezones[i%len(timezones)])
		if i%3 == 0 {
			fmt.Fprintf(&b, "    escalation:\n      slack: %s\n      users: [%s]\n", q("#"+id+"-oncall"), q("@"+id+"-lead"))
		}
	}
	return []byte(b.String())
}

func (s *subject) contractYAML() []byte {
	var b strings.Builder
	b.WriteString("# yaml-language-server: $schema=../../../docs/schemas/contract.schema.json\n")
	fmt.Fprintf(&b, "subject: %s\nformat: %s\nschema: %s\ncompatibility: %s\nowner: %s\ntier: %s\n",
		s.subject, s.format, s.schemaFile, s.compat, s.owner, s.tier)
	if !s.common {
		fmt.Fprintf(&b, "topic: %s\nsignoff_hours: %d\n", ident(s.domain)+"."+s.name, 24+24*(s.idx%3))
	}
	desc := fmt.Sprintf("%s, produced by the %s team.", s.docText(), s.owner)
	if s.descRev > 0 {
		desc += fmt.Sprintf(" Updated %d times.", s.descRev)
	}
	fmt.Fprintf(&b, "description: %s\n", q(desc))
	if !s.common {
		b.WriteString("fields:\n  customer.id: {pii: true, doc: \"buyer id, from the accounts service\"}\n  amount: {unit: EUR}\n")
	}
	return []byte(b.String())
}

func (c *consumer) yaml() []byte {
	var b strings.Builder
	b.WriteString("# yaml-language-server: $schema=../../../../docs/schemas/consumer.schema.json\n")
	fmt.Fprintf(&b, "name: %s\nowner: %s\nkind: %s\nsystem: %s\n", c.name, c.owner, c.kind, systems[c.kind])
	desc := fmt.Sprintf("%s %s owned by %s.", c.kind, c.name, c.owner)
	if c.descRev > 0 {
		desc += fmt.Sprintf(" Revision %d.", c.descRev)
	}
	fmt.Fprintf(&b, "description: %s\n", q(desc))
	reads := make([]string, len(c.reads))
	for i, r := range c.reads {
		reads[i] = r
		if r == "*" {
			reads[i] = q(r)
		}
	}
	fmt.Fprintf(&b, "reads: [%s]\n", strings.Join(reads, ", "))
	if len(c.produces) > 0 {
		b.WriteString("produces:\n")
		for _, l := range c.produces {
			fmt.Fprintf(&b, "  %s:\n", l.subject)
			for _, f := range l.fields {
				fmt.Fprintf(&b, "    %s: [%s]\n", f[0], f[1])
			}
		}
	}
	return []byte(b.String())
}

func (s *subject) schemaText() []byte {
	switch {
	case s.common:
		return []byte(commonProto)
	case s.format == "protobuf":
		return renderProto(s)
	default:
		return renderAvro(s)
	}
}

func (g *gen) calendar() {
	n := max(3, min(50, len(g.chained)/200))
	n = min(n, len(g.chained))
	day := time.Date(2027, 1, 11, 0, 0, 0, 0, time.UTC)
	for k := 0; k < n; k++ {
		s := g.chained[g.rng.IntN(len(g.chained))]
		d := day.AddDate(0, 0, k*2)
		slug := fmt.Sprintf("%s-%d", strings.SplitN(s.name, "-", 2)[0], k)
		var b strings.Builder
		b.WriteString("# yaml-language-server: $schema=../docs/schemas/calendar-entry.schema.json\n")
		fmt.Fprintf(&b, "title: %s\nkind: %s\nsubjects: [%s]\nowner: %s\nwindow:\n  start: %s\n  end: %s\n  timezone: Europe/Berlin\npull_request: %d\n",
			q("Planned change to "+s.subject), calendarKinds[k%len(calendarKinds)], s.subject, s.owner,
			q(d.Format("2006-01-02")+"T10:00"), q(d.Format("2006-01-02")+"T16:00"), 100+k)
		g.put("calendar/"+d.Format("2006-01-02")+"-"+slug+".yaml", []byte(b.String()))
		g.stats.CalendarFiles++
	}
	g.put("calendar/freezes.yaml", []byte(`# yaml-language-server: $schema=../docs/schemas/freezes.schema.json
freezes:
  - name: year-end
    reason: Peak season
    start: "2026-12-18T00:00"
    end: "2027-01-04T08:00"
    timezone: Europe/Berlin
    scope: {everything: true}
  - name: weekend
    weekly: {from: "fri 18:00", to: "mon 08:00"}
    timezone: Europe/Berlin
    scope: {tiers: [core]}
`))
}

func (g *gen) initialTree() {
	g.put("README.md", []byte("# Synthetic contract repository\n\nGenerated by contractbot's internal/synth.\n"))
	g.put("contracts/teams.yaml", g.teamsYAML())
	g.stats.Teams = len(teamIDs)
	for _, s := range g.subjects {
		g.put(s.folder()+"/contract.yaml", s.contractYAML())
		g.put(s.folder()+"/"+s.schemaFile, s.schemaText())
		for _, c := range s.consumers {
			g.put(s.folder()+"/consumers/"+c.name+".yaml", c.yaml())
			g.stats.Consumers++
			g.stats.LineageEdges += len(c.produces)
		}
		if s.format == "protobuf" {
			g.stats.Protobuf++
		} else {
			g.stats.Avro++
		}
	}
	g.stats.Subjects = len(g.subjects)
	g.calendar()
}

// edit makes one random change and describes it.
func (g *gen) edit() string {
	s := g.chained[g.rng.IntN(len(g.chained))]
	r := g.rng.Float64()
	switch {
	case r < 0.55:
		s.nextExtra++
		name := fmt.Sprintf("%s_v%d", extraNames[g.rng.IntN(len(extraNames))], s.nextExtra)
		s.extras = append(s.extras, field{name: name, kind: kOptString, doc: "Added later; optional."})
		g.put(s.folder()+"/"+s.schemaFile, s.schemaText())
		return s.subject + ": add optional field " + name
	case r < 0.70:
		s.docRev++
		g.put(s.folder()+"/"+s.schemaFile, s.schemaText())
		return s.subject + ": reword the record doc"
	case r < 0.90 && len(s.consumers) > 0:
		c := s.consumers[g.rng.IntN(len(s.consumers))]
		paths := s.paths()
		p := paths[g.rng.IntN(len(paths))]
		if len(c.reads) == 1 && c.reads[0] == "*" || contains(c.reads, p) {
			c.descRev++
			g.put(s.folder()+"/consumers/"+c.name+".yaml", c.yaml())
			return s.subject + ": consumer " + c.name + " rewords its description"
		}
		c.reads = append(c.reads, p)
		sort.Strings(c.reads)
		g.put(s.folder()+"/consumers/"+c.name+".yaml", c.yaml())
		return s.subject + ": consumer " + c.name + " now reads " + p
	default:
		s.descRev++
		g.put(s.folder()+"/contract.yaml", s.contractYAML())
		return s.subject + ": update the contract description"
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (g *gen) run() error {
	g.plan()
	g.initialTree()
	if err := g.commit(fmt.Sprintf("synth: %d subjects, %d consumers", g.stats.Subjects, g.stats.Consumers)); err != nil {
		return err
	}
	for i := 1; i < g.o.Commits; i++ {
		n := 1 + g.rng.IntN(3)
		msgs := make([]string, 0, n)
		for j := 0; j < n; j++ {
			msgs = append(msgs, g.edit())
		}
		if err := g.commit(fmt.Sprintf("synth: %d edit(s)\n\n%s", n, strings.Join(msgs, "\n"))); err != nil {
			return err
		}
	}
	g.stats.Files = g.root.countFiles()
	return nil
}

// Generate creates a Git repository in dir (which must not hold one yet) with the
// generated history on branch main, HEAD pointing at it. With opts.Checkout the final
// tree is also written to dir with a matching index, as after a clone.
func Generate(dir string, opts Options) (*git.Repository, error) {
	repo, _, err := GenerateStats(dir, opts)
	return repo, err
}

// GenerateStats is Generate that also reports what it made.
func GenerateStats(dir string, opts Options) (*git.Repository, Stats, error) {
	t0 := time.Now()
	g := newGen(opts.withDefaults(), true)
	if err := g.run(); err != nil {
		return nil, Stats{}, err
	}
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName(Branch)}})
	if err != nil {
		return nil, Stats{}, err
	}
	if err := writePack(filepath.Join(dir, ".git", "objects", "pack"), g.store.objs); err != nil {
		return nil, Stats{}, err
	}
	// reopen so the storage sees the new pack
	if repo, err = git.PlainOpen(dir); err != nil {
		return nil, Stats{}, err
	}
	if err := repo.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(Branch), g.head)); err != nil {
		return nil, Stats{}, err
	}
	if g.o.Checkout {
		if err := g.root.writeFiles(dir); err != nil {
			return nil, Stats{}, err
		}
		if err := repo.Storer.SetIndex(g.index(dir)); err != nil {
			return nil, Stats{}, err
		}
	}
	g.stats.Commits = g.commits
	g.stats.Objects = len(g.store.objs)
	g.stats.Head = g.head
	g.stats.Elapsed = time.Since(t0)
	return repo, g.stats, nil
}

// WriteTree writes the tree Generate would check out (after opts.Commits commits'
// edits) into dir as plain files, without Git.
func WriteTree(dir string, opts Options) (Stats, error) {
	t0 := time.Now()
	g := newGen(opts.withDefaults(), false)
	if err := g.run(); err != nil {
		return Stats{}, err
	}
	if err := g.root.writeFiles(dir); err != nil {
		return Stats{}, err
	}
	g.stats.Commits = g.commits
	g.stats.Elapsed = time.Since(t0)
	return g.stats, nil
}

func (g *gen) index(dir string) *index.Index {
	idx := &index.Index{Version: 2}
	g.root.walk("", func(p string, f *file) {
		e := &index.Entry{Name: p, Hash: f.hash, Mode: filemode.Regular, Size: uint32(len(f.data))}
		if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err == nil {
			e.ModifiedAt = st.ModTime()
			e.CreatedAt = st.ModTime()
		}
		idx.Entries = append(idx.Entries, e)
	})
	sort.Slice(idx.Entries, func(i, j int) bool { return idx.Entries[i].Name < idx.Entries[j].Name })
	return idx
}

// ---- in-memory tree with cached subtree hashes ----

type file struct {
	data []byte
	hash plumbing.Hash
}

type dir struct {
	files map[string]*file
	dirs  map[string]*dir
	hash  plumbing.Hash
	dirty bool
	order []object.TreeEntry // names and modes in Git order; nil after a name was added
}

func newDir() *dir { return &dir{files: map[string]*file{}, dirs: map[string]*dir{}, dirty: true} }

func (g *gen) put(path string, data []byte) {
	d := g.root
	parts := strings.Split(path, "/")
	d.dirty = true
	for _, p := range parts[:len(parts)-1] {
		sub := d.dirs[p]
		if sub == nil {
			sub = newDir()
			d.dirs[p] = sub
			d.order = nil
		}
		sub.dirty = true
		d = sub
	}
	f := &file{data: data}
	if g.store != nil {
		f.hash = g.store.put(plumbing.BlobObject, data)
	}
	name := parts[len(parts)-1]
	if _, ok := d.files[name]; !ok {
		d.order = nil
	}
	d.files[name] = f
}

func (d *dir) countFiles() int {
	n := len(d.files)
	for _, s := range d.dirs {
		n += s.countFiles()
	}
	return n
}

func (d *dir) walk(prefix string, fn func(string, *file)) {
	for n, f := range d.files {
		fn(prefix+n, f)
	}
	for n, s := range d.dirs {
		s.walk(prefix+n+"/", fn)
	}
}

func (d *dir) writeFiles(root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	for n, f := range d.files {
		if err := os.WriteFile(filepath.Join(root, n), f.data, 0o644); err != nil {
			return err
		}
	}
	for n, s := range d.dirs {
		if err := s.writeFiles(filepath.Join(root, n)); err != nil {
			return err
		}
	}
	return nil
}

// treeHash writes the trees that changed since the last commit and returns d's hash.
func (g *gen) treeHash(d *dir) plumbing.Hash {
	if !d.dirty {
		return d.hash
	}
	if d.order == nil {
		d.order = make([]object.TreeEntry, 0, len(d.files)+len(d.dirs))
		for n := range d.files {
			d.order = append(d.order, object.TreeEntry{Name: n, Mode: filemode.Regular})
		}
		for n := range d.dirs {
			d.order = append(d.order, object.TreeEntry{Name: n, Mode: filemode.Dir})
		}
		sort.Sort(object.TreeEntrySorter(d.order))
	}
	b := make([]byte, 0, len(d.order)*48)
	for _, e := range d.order {
		if e.Mode == filemode.Dir {
			e.Hash = g.treeHash(d.dirs[e.Name])
		} else {
			e.Hash = d.files[e.Name].hash
		}
		if e.Mode == filemode.Dir {
			b = append(b, "40000 "...)
		} else {
			b = append(b, "100644 "...)
		}
		b = append(b, e.Name...)
		b = append(b, 0)
		b = append(b, e.Hash[:]...)
	}
	d.hash = g.store.put(plumbing.TreeObject, b)
	d.dirty = false
	return d.hash
}

func (g *gen) commit(msg string) error {
	g.commits++
	if g.store == nil {
		return nil
	}
	when := g.o.Start.Add(time.Duration(g.commits-1) * 17 * time.Minute)
	sig := object.Signature{Name: "synth", Email: "synth@example.invalid", When: when}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg + "\n", TreeHash: g.treeHash(g.root)}
	if !g.head.IsZero() {
		c.ParentHashes = []plumbing.Hash{g.head}
	}
	o := &plumbing.MemoryObject{}
	if err := c.Encode(o); err != nil {
		return err
	}
	g.head = g.store.putObject(o)
	return nil
}

// objStore keeps objects in memory, in first-written order, for one packfile.
type objStore struct {
	seen map[plumbing.Hash]bool
	objs []rawObject
}

type rawObject struct {
	t    plumbing.ObjectType
	data []byte
	h    plumbing.Hash
}

func newObjStore() *objStore { return &objStore{seen: map[plumbing.Hash]bool{}} }

// objectHash is Git's object id: SHA-1 of "<type> <size>\x00<content>".
func objectHash(t plumbing.ObjectType, data []byte) plumbing.Hash {
	h := sha1.New()
	h.Write(t.Bytes())
	h.Write([]byte(" " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	var out plumbing.Hash
	copy(out[:], h.Sum(nil))
	return out
}

func (s *objStore) put(t plumbing.ObjectType, data []byte) plumbing.Hash {
	h := objectHash(t, data)
	if !s.seen[h] {
		s.seen[h] = true
		s.objs = append(s.objs, rawObject{t, data, h})
	}
	return h
}

func (s *objStore) putObject(o *plumbing.MemoryObject) plumbing.Hash {
	r, _ := o.Reader()
	data, _ := io.ReadAll(r)
	return s.put(o.Type(), data)
}
