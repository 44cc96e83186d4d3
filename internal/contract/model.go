// Package contract loads and validates a contract repository: teams, subjects with
// their schemas and consumers, and the change calendar. It reads the tree from a
// working directory or at any Git revision (go-git, no checkout) and reports every
// problem at once, each with file:line:column and what to write instead.
package contract

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/formats"
)

// Well-known places in a contract repository.
const (
	ContractsDir   = "contracts"
	CalendarDir    = "calendar"
	TeamsFile      = "contracts/teams.yaml"
	FreezesFile    = "calendar/freezes.yaml"
	ContractFile   = "contract.yaml"
	ConsumersDir   = "consumers"
	CodeownersFile = "CODEOWNERS"
)

// Pos is a 1-based line and column in a file.
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Tree is a whole contract repository, loaded and validated.
type Tree struct {
	// Teams by id.
	Teams map[string]*Team
	// Subjects sorted by subject name.
	Subjects []*Subject
	// Calendar entries sorted by window start, then file; freezes in file order.
	Entries []*Entry
	Freezes []*Freeze
	// Diagnostics lists every problem found, sorted by file, line and column.
	Diagnostics Diagnostics
	// Partial is true for a tree loaded with LoadSubjects: it holds some subjects.
	Partial bool
	// Unreadable lists, sorted, the subject folders loaded that hold no usable subject:
	// their contract.yaml is missing, unreadable (a link, over the size limit), or
	// does not decode into a valid subject name; Diagnostics say why. A subject that
	// another revision has in one of these folders is broken here, not deleted.
	Unreadable []string
	// Duplicates maps each subject name that more than one folder claims to those
	// folders, sorted (the first keeps the name; each later one has a
	// duplicate-subject error). A partial load learns them from the whole tree
	// (Tree.AddDuplicates). Such a subject is not judged until one folder names it.
	Duplicates map[string][]string

	bySubject map[string]*Subject
	// resolve reads a Protobuf import of this tree (relative to contracts/).
	resolve func(importPath string) ([]byte, error)
}

// IsUnreadable reports whether dir is one of the folders of Unreadable.
func (t *Tree) IsUnreadable(dir string) bool {
	_, found := slices.BinarySearch(t.Unreadable, dir)
	return found
}

// ReadImport reads a schema file by its import path (relative to contracts/), as the
// Protobuf compiler does when it resolves imports in this tree.
func (t *Tree) ReadImport(importPath string) ([]byte, error) {
	if t.resolve == nil {
		return nil, fmt.Errorf("import %q: %w", importPath, fs.ErrNotExist)
	}
	return t.resolve(importPath)
}

// SubjectOfConsumerFile returns the subject whose consumers/ folder holds file, or "".
func (t *Tree) SubjectOfConsumerFile(file string) string {
	dir, _, ok := strings.Cut(file, "/"+ConsumersDir+"/")
	if !ok {
		return ""
	}
	for _, s := range t.Subjects {
		if s.Dir == dir {
			return s.Subject
		}
	}
	return ""
}

// Subject returns the subject with that registry name, or nil.
func (t *Tree) Subject(name string) *Subject { return t.bySubject[name] }

// TeamIDs returns the team ids in order.
func (t *Tree) TeamIDs() []string {
	ids := make([]string, 0, len(t.Teams))
	for id := range t.Teams {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Team is one entry of contracts/teams.yaml.
type Team struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	// GitHub lists the team's GitHub handles: "@org/team" for a team, "@login" for a user.
	GitHub []string `json:"github"`
	// Slack is the team's channel ("#orders").
	Slack string `json:"slack,omitempty"`
	// Escalation is where overdue sign-offs go.
	Escalation *Escalation `json:"escalation,omitempty"`
	// Timezone is an IANA zone used for working-day reminders; UTC when empty.
	Timezone string `json:"timezone,omitempty"`
	// Members lists the logins ("@login") of the team's GitHub teams, for where
	// team membership cannot be read through GitHub's API (GitHub Actions with
	// GITHUB_TOKEN): an approval by one of them is the team's sign-off. Read from the
	// base of a change, never from the change itself.
	Members []string `json:"members,omitempty"`
	// Lead is the team's lead, who gets the monthly health digest.
	Lead *Lead `json:"lead,omitempty"`
	Pos  Pos   `json:"-"`
}

// Lead is a team's lead: who gets the team's part of the monthly health digest.
type Lead struct {
	// GitHub is the lead's login ("@login"), named in the digest.
	GitHub string `json:"github,omitempty"`
	// Slack is where the digest goes: a Slack member id ("U024BE7LH", a direct
	// message from the bot) or a channel ("#dw-leads").
	Slack string `json:"slack"`
}

// Escalation says whom to tell when a sign-off is overdue.
type Escalation struct {
	Slack string   `json:"slack,omitempty"`
	Users []string `json:"users,omitempty"`
}

// Subject is one registry subject: a folder contracts/<domain>/<name>/.
type Subject struct {
	// Dir is the subject's folder, relative to the repository root.
	Dir    string `json:"dir"`
	Domain string `json:"domain"`
	Name   string `json:"name"`

	Subject       string               `json:"subject"`
	Format        string               `json:"format"` // a format of checker/formats: avro | protobuf
	SchemaFile    string               `json:"schema"` // relative to the repository root
	Compatibility string               `json:"compatibility"`
	Owner         string               `json:"owner"`
	Tier          string               `json:"tier"` // core | standard
	Topic         string               `json:"topic,omitempty"`
	SignoffHours  int                  `json:"signoff_hours"`
	Description   string               `json:"description,omitempty"`
	ProtobufRules string               `json:"protobuf_rules,omitempty"` // "", WIRE, WIRE_JSON
	Message       string               `json:"message,omitempty"`        // Protobuf record message
	Fields        map[string]FieldMeta `json:"fields,omitempty"`
	// FieldPos locates each key of fields: in contract.yaml.
	FieldPos map[string]Pos `json:"-"`
	// Policy tightens or loosens the tier's governance defaults (RemovalPolicy).
	Policy Policy `json:"policy,omitzero"`
	// Keys, SLA, Retention ("7d", "72h", "forever") and Partitions describe the table
	// the subject's topic carries; nil or zero when contract.yaml leaves them out.
	Keys       *Keys  `json:"keys,omitempty"`
	SLA        *SLA   `json:"sla,omitempty"`
	Retention  string `json:"retention,omitempty"`
	Partitions int    `json:"partitions,omitempty"`
	// Rules are the data rules (Confluent's ruleSet: CEL conditions and transforms).
	Rules []Rule `json:"rules,omitempty"`
	// Group is the compatibility group of the subject's versions, nil for none.
	Group *Group `json:"compatibility_group,omitempty"`

	// Consumers sorted by name.
	Consumers []*Consumer `json:"consumers"`

	// SchemaText is the schema file's content.
	SchemaText []byte `json:"-"`
	// Digest identifies the schema as compiled: its text and, for Protobuf, the texts
	// of every file it imports from the tree. Two versions with the same digest are
	// the same schema; a change to an imported file changes the importer's digest.
	Digest string `json:"digest,omitempty"`
	// KeyPos locates the keys of contract.yaml ("compatibility", "owner", "fields.x").
	KeyPos map[string]Pos `json:"-"`

	// subjectPos locates subject: in contract.yaml (KeyPos["subject"], kept when a
	// lean load drops KeyPos).
	subjectPos Pos
	// fieldPaths are the schema's dotted field paths (at most checker.MaxFieldPaths),
	// nil when it did not parse; fieldGraph resolves any path through its types.
	// pathsDropped: a lean load (LoadForLint) dropped fieldPaths, which FieldPaths
	// lists again from the schema.
	fieldPaths   []string
	fieldGraph   *checker.FieldGraph
	pathsDropped bool
	// undocumented lists the top-level fields the schema leaves without doc, for
	// the load's checks only.
	undocumented []item
	// ruleTypes are the schema's types for the data rules, while they are checked.
	ruleTypes *ruleTypes
	// parse parses the schema again; the tree keeps only its text and field paths, so
	// a 10,000-subject tree stays small. Set when the schema parsed at load.
	parse  func() (checker.Schema, error)
	once   sync.Once
	schema checker.Schema
	err    error
}

// Schema returns the parsed schema, parsed on first use by the format's engine and
// kept. It returns an error when the schema did not parse at load (the diagnostics say
// why).
func (s *Subject) Schema() (checker.Schema, error) {
	s.once.Do(func() {
		if s.parse == nil {
			s.err = fmt.Errorf("the schema of %s did not parse; see the lint diagnostics of %s", s.Subject, s.SchemaFile)
			return
		}
		s.schema, s.err = s.parse()
	})
	return s.schema, s.err
}

// Engine returns the engine of the subject's format from the table
// (checker/formats), or nil when the format is not in it.
func (s *Subject) Engine() checker.Engine {
	e, _ := formats.Lookup(s.Format)
	return e
}

// ContractPath is the subject's contract.yaml.
func (s *Subject) ContractPath() string { return s.Dir + "/" + ContractFile }

// FieldPaths returns the schema's dotted field paths, sorted, or nil when the schema
// did not parse. The list stops at checker.MaxFieldPaths (the load then warns on the
// schema file); HasFieldPath resolves every path.
func (s *Subject) FieldPaths() []string {
	if s.pathsDropped {
		return s.pathsAgain()
	}
	return s.fieldPaths
}

// hasFieldPaths reports whether FieldPaths is not nil, without listing them.
func (s *Subject) hasFieldPaths() bool { return s.fieldPaths != nil || s.pathsDropped }

// HasFieldPath reports whether a dotted path names a field of the schema, walking the
// schema's types (each once) rather than its list of paths.
func (s *Subject) HasFieldPath(p string) bool {
	if s.fieldGraph != nil {
		return s.fieldGraph.Has(p)
	}
	i := sort.SearchStrings(s.fieldPaths, p)
	return i < len(s.fieldPaths) && s.fieldPaths[i] == p
}

// FieldMeta is governance metadata about one field of a subject.
type FieldMeta struct {
	PII  bool   `json:"pii,omitempty"`
	Doc  string `json:"doc,omitempty"`
	Unit string `json:"unit,omitempty"`
	// Deprecated is set when the field is on its way out.
	Deprecated *Deprecation `json:"deprecated,omitempty"`
}

// Consumer is one file contracts/<domain>/<name>/consumers/<consumer>.yaml.
type Consumer struct {
	// File is the consumer file, relative to the repository root.
	File        string `json:"file"`
	Name        string `json:"name"`
	Owner       string `json:"owner"`
	Kind        string `json:"kind"`
	System      string `json:"system,omitempty"`
	Description string `json:"description,omitempty"`
	// Reads lists the dotted field paths the consumer reads; "*" means every field.
	Reads []string `json:"reads"`
	// Produces maps an output subject to its lineage: output field <- input fields.
	Produces map[string]map[string][]string `json:"produces,omitempty"`
	// Signoff is "required" when the team signs off changes reaching the consumer
	// through lineage too; "" otherwise.
	Signoff string `json:"signoff,omitempty"`
	// Group is the value of its subject's compatibility group the consumer reads
	// (use.latest.with.metadata), "" when it declares none (see OnGroup).
	Group string `json:"group,omitempty"`
	// State is what a stateful job keeps of the subject, nil for none.
	State *JobState `json:"state,omitempty"`
	// OpenLineage names the OpenLineage job whose events are this consumer's, nil
	// when the job is named as the consumer.
	OpenLineage *OpenLineageJob `json:"openlineage,omitempty"`
	// SQL lists the job's Flink SQL scripts (sql:), from the repository root, in the
	// order they run; SQLText holds their text, in the same order.
	SQL     []string `json:"sql,omitempty"`
	SQLText []string `json:"-"`
	// Subject is the registry name of the subject this consumer reads.
	Subject string `json:"subject"`
	// ReadPos locates each entry of reads, in order.
	ReadPos []Pos          `json:"-"`
	KeyPos  map[string]Pos `json:"-"`
}

// ConsumerKinds lists the allowed consumer kinds.
var ConsumerKinds = []string{"flink-job", "spark-job", "kafka-streams", "service", "sink", "dashboard", "connector", "batch-job", "other"}

// Entry is a planned change: calendar/<yyyy-mm-dd>-<slug>.yaml.
type Entry struct {
	File        string    `json:"file"`
	Title       string    `json:"title"`
	Kind        string    `json:"kind"`
	Subjects    []string  `json:"subjects"`
	Owner       string    `json:"owner"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	Timezone    string    `json:"timezone"`
	PullRequest int       `json:"pull_request,omitempty"`
	Notes       string    `json:"notes,omitempty"`
	Pos         Pos       `json:"-"`
}

// EntryKinds lists the allowed calendar entry kinds.
var EntryKinds = []string{"schema-change", "consumer-upgrade", "state-migration", "backfill", KindDualWrite}

// Freeze is one window of calendar/freezes.yaml in which no breaking change may land.
type Freeze struct {
	Name   string `json:"name"`
	Reason string `json:"reason,omitempty"`
	// Start and End bound a one-off freeze; zero for a weekly one.
	Start time.Time `json:"start,omitempty"`
	End   time.Time `json:"end,omitempty"`
	// Weekly repeats the freeze every week, e.g. from "fri 18:00" to "mon 08:00".
	Weekly   *Weekly `json:"weekly,omitempty"`
	Timezone string  `json:"timezone"`
	Scope    Scope   `json:"scope"`
	Pos      Pos     `json:"-"`
}

// Weekly is a recurring window within a week, in the freeze's time zone.
type Weekly struct {
	FromDay  time.Weekday `json:"from_day"`
	FromTime string       `json:"from"` // "18:00"
	ToDay    time.Weekday `json:"to_day"`
	ToTime   string       `json:"to"`
}

// Scope says what a freeze covers: everything, or some domains or tiers.
type Scope struct {
	Everything bool     `json:"everything,omitempty"`
	Domains    []string `json:"domains,omitempty"`
	Tiers      []string `json:"tiers,omitempty"`
}
