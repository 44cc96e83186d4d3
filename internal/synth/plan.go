package synth

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// What a synthetic repository holds: the vocabulary, the subjects, consumers and
// lineage planned for a seed, and the edits of later commits.

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
		{name: "status", kind: kEnum, doc: "Where the event's entity stands.", symbols: syms},
		{name: "customer", kind: kRecord, doc: "Who.", children: []field{
			{name: "id", kind: kString},
			{name: "country", kind: kOptString},
			{name: "address", kind: kRecord, children: []field{
				{name: "city", kind: kString},
				{name: "zip", kind: kString},
			}},
		}},
		{name: "items", kind: kArrayRecord, doc: "What.", children: []field{
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
		out = append(out, field{name: extraNames[i], kind: scalar[g.rng.IntN(len(scalar))], doc: "Synthetic " + extraNames[i] + "."})
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
			} else if kind == "flink-job" || kind == "spark-job" {
				// a job that writes no subject is a sink (lint warns on black boxes)
				c.kind = "sink"
			}
			s.consumers = append(s.consumers, c)
		}
	}
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
		if len(c.reads) == 1 && c.reads[0] == "*" || slices.Contains(c.reads, p) {
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
