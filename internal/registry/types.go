package registry

import (
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/formats"
)

// ContentType is the media type of the Schema Registry REST API.
const ContentType = "application/vnd.schemaregistry.v1+json"

// SchemaType names a schema language as the registry does. Avro is the registry's
// default and is left out of requests and responses.
type SchemaType string

// The schema types.
const (
	Avro     SchemaType = "AVRO"
	Protobuf SchemaType = "PROTOBUF"
	JSON     SchemaType = "JSON"
)

// Reference is a schema reference: a Protobuf import (Name is the import path) or an
// Avro named type defined under another subject, pinned to one version.
type Reference struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// Schema is one registered schema as the registry describes it. Subject and Version
// are empty when it was fetched by id.
type Schema struct {
	Subject    string      `json:"subject,omitempty"`
	Version    int         `json:"version,omitempty"`
	ID         int         `json:"id,omitempty"`
	SchemaType SchemaType  `json:"schemaType,omitempty"`
	References []Reference `json:"references,omitempty"`
	// Metadata is the data-contract metadata registered with the schema (Confluent
	// Platform 7.4 and later).
	Metadata *Metadata `json:"metadata,omitempty"`
	// RuleSet is the data contract's rules registered with the schema.
	RuleSet *RuleSet `json:"ruleSet,omitempty"`
	Schema  string   `json:"schema"`
}

// RuleSet is a data contract's rules as the Confluent Schema Registry takes them:
// domain rules (modes WRITE, READ, WRITEREAD) and migration rules (UPGRADE,
// DOWNGRADE, UPDOWN).
type RuleSet struct {
	MigrationRules []Rule `json:"migrationRules,omitempty"`
	DomainRules    []Rule `json:"domainRules,omitempty"`
}

// Rule is one rule of a RuleSet.
type Rule struct {
	Name      string            `json:"name"`
	Doc       string            `json:"doc,omitempty"`
	Kind      string            `json:"kind"`
	Mode      string            `json:"mode"`
	Type      string            `json:"type"`
	Tags      []string          `json:"tags,omitempty"`
	Params    map[string]string `json:"params,omitempty"`
	Expr      string            `json:"expr,omitempty"`
	OnSuccess string            `json:"onSuccess,omitempty"`
	OnFailure string            `json:"onFailure,omitempty"`
	Disabled  bool              `json:"disabled,omitempty"`
}

// Metadata is a data contract's metadata as the Confluent Schema Registry takes it:
// tags by field path pattern ("**.user_id": ["PII"]), properties (owner, tier, ...)
// and the names of the properties that are sensitive.
type Metadata struct {
	Tags       map[string][]string `json:"tags,omitempty"`
	Properties map[string]string   `json:"properties,omitempty"`
	Sensitive  []string            `json:"sensitive,omitempty"`
}

// Type returns the schema type, AVRO when the registry left it out.
func (s Schema) Type() SchemaType {
	if s.SchemaType == "" {
		return Avro
	}
	return s.SchemaType
}

// SubjectVersion names one version of one subject.
type SubjectVersion struct {
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// Compatibility is the answer of a compatibility test.
type Compatibility struct {
	IsCompatible bool     `json:"is_compatible"`
	Messages     []string `json:"messages,omitempty"`
}

// schemaRequest is the body of register, look-up and compatibility requests.
type schemaRequest struct {
	Schema     string      `json:"schema"`
	SchemaType SchemaType  `json:"schemaType,omitempty"`
	References []Reference `json:"references,omitempty"`
	Metadata   *Metadata   `json:"metadata,omitempty"`
	RuleSet    *RuleSet    `json:"ruleSet,omitempty"`
}

// configBody is the body of GET and PUT /config. GET answers compatibilityLevel, PUT
// takes and answers compatibility.
type configBody struct {
	CompatibilityLevel string `json:"compatibilityLevel,omitempty"`
	Compatibility      string `json:"compatibility,omitempty"`
	// CompatibilityGroup is the metadata property whose value groups the subject's
	// versions: the registry checks a version only against those of its group.
	CompatibilityGroup string `json:"compatibilityGroup,omitempty"`
}

func typeForRequest(t SchemaType) SchemaType {
	if t == Avro {
		return ""
	}
	return t
}

// TypeOf is the schema type of a contract format (contract.yaml's `format:`), from the
// table of formats; AVRO, the registry's default, for a format not in it.
func TypeOf(format string) SchemaType {
	if e, ok := formats.Lookup(format); ok {
		return SchemaType(e.Describe().RegistryType)
	}
	return Avro
}

// EngineOf finds the engine of a schema type in the table of formats.
func EngineOf(t SchemaType) (checker.Engine, bool) {
	for _, e := range formats.All() {
		if strings.EqualFold(e.Describe().RegistryType, string(t)) {
			return e, true
		}
	}
	return nil, false
}

// servedTypes lists the schema types of the table of formats, in its order.
func servedTypes() []SchemaType {
	var out []SchemaType
	for _, e := range formats.All() {
		out = append(out, SchemaType(e.Describe().RegistryType))
	}
	return out
}
