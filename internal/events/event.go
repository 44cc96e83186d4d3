// Package events describes a published schema version as a CloudEvents 1.0 event
// (structured JSON) and delivers it to sinks: a JSON-lines file (the embedded default),
// an HTTP endpoint (signed with HMAC-SHA256) and a Kafka topic (franz-go).
//
// An event's id is derived from the merge commit, the subject and the version, so an
// event sent again after a crash carries the same id and consumers can drop the copy.
// See docs/events.md.
package events

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// The CloudEvents attributes contractbot sets.
const (
	SpecVersion = "1.0"
	// TypePublished is the type of the event sent when a schema version is published.
	TypePublished = "io.contractbot.schema.published"
	// ContentType is the datacontenttype of every event.
	ContentType = "application/json"
	// MediaType is the HTTP Content-Type of a structured-mode CloudEvent.
	MediaType = "application/cloudevents+json"
)

// Event is a CloudEvents 1.0 event in structured JSON form.
type Event struct {
	SpecVersion     string    `json:"specversion"`
	ID              string    `json:"id"`
	Source          string    `json:"source"`
	Type            string    `json:"type"`
	Subject         string    `json:"subject"`
	Time            time.Time `json:"time"`
	DataContentType string    `json:"datacontenttype"`
	Data            Published `json:"data"`
}

// Published is the data of a TypePublished event: one schema version merged on the
// default branch, and what the merge decided about it.
type Published struct {
	Subject string `json:"subject"`
	// Version and ID are the version and global schema id in the contract repository's
	// history (what the embedded registry serves).
	Version int `json:"version"`
	ID      int `json:"id"`
	// RegisteredID is the id a remote registry answered, when one was written to (it
	// may number schemas its own way).
	RegisteredID int    `json:"registered_id,omitempty"`
	Previous     *Ref   `json:"previous,omitempty"`
	Format       string `json:"format"`
	Level        string `json:"level"`
	// OldLevel is the level before the commit, when the commit changed it.
	OldLevel string `json:"old_level,omitempty"`
	// Governance lists what the change does to the contract that every consumer's
	// team had to agree to (a loosened level, another owner, format or topic), in the
	// verdict's words.
	Governance []string `json:"governance,omitempty"`
	// Class is SAFE, COMPATIBLE or BREAKING (DESIGN.md, Verdicts).
	Class    string        `json:"class"`
	Changes  []FieldChange `json:"changes"`
	Affected []Consumer    `json:"affected"`
	SignOffs []SignOff     `json:"signoffs,omitempty"`
	Override *Override     `json:"override,omitempty"`
	// Calendar is the calendar entry that covers the change ("" when none).
	Calendar    string       `json:"calendar,omitempty"`
	PullRequest *PullRequest `json:"pull_request,omitempty"`
	MergeCommit string       `json:"merge_commit"`
	// SchemaFile is the schema's path in the repository at the merge commit.
	SchemaFile string `json:"schema_file"`
}

// Ref names one version of a subject.
type Ref struct {
	Version int `json:"version"`
	ID      int `json:"id"`
}

// FieldChange is one field-level change of the schema.
type FieldChange struct {
	Kind    string `json:"kind"`
	Path    string `json:"path"`
	OldPath string `json:"old_path,omitempty"`
	Old     string `json:"old,omitempty"`
	New     string `json:"new,omitempty"`
	// Effect is breaking, meaning or harmless, for a consumer that reads Path.
	Effect  string `json:"effect"`
	Message string `json:"message"`
}

// Consumer is one affected consumer, direct (Hops 0) or across lineage hops.
type Consumer struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Owner   string `json:"owner"`
	Effect  string `json:"effect"`
	Direct  bool   `json:"direct"`
	Hops    int    `json:"hops"`
}

// SignOff is one team's sign-off, as it stood at the merge.
type SignOff struct {
	Team       string    `json:"team"`
	Status     string    `json:"status"`
	ApprovedBy string    `json:"approved_by,omitempty"`
	At         time.Time `json:"at,omitzero"`
	// RequestedAt is when the bot asked the team (its sign-off clock's start): with
	// At, the sign-off latency of the health report.
	RequestedAt time.Time `json:"requested_at,omitzero"`
}

// Override is an audited decision to merge without what the change needed.
type Override struct {
	By     string    `json:"by"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// PullRequest is the merged pull request, when the merge commit names one.
type PullRequest struct {
	Number int    `json:"number"`
	URL    string `json:"url,omitempty"`
}

// ID returns the deterministic event id of a subject version published at a commit.
func ID(commit, subject string, version int) string {
	h := sha256.Sum256([]byte(commit + "\x00" + subject + "\x00" + strconv.Itoa(version)))
	return hex.EncodeToString(h[:16])
}

// New returns the event for data, published from source (the repository) at t.
func New(source string, t time.Time, data Published) Event {
	return Event{
		SpecVersion:     SpecVersion,
		ID:              ID(data.MergeCommit, data.Subject, data.Version),
		Source:          source,
		Type:            TypePublished,
		Subject:         data.Subject,
		Time:            t.UTC(),
		DataContentType: ContentType,
		Data:            data,
	}
}

// Marshal encodes e as one line of JSON (no trailing newline).
func Marshal(e Event) ([]byte, error) {
	if e.Data.Changes == nil {
		e.Data.Changes = []FieldChange{}
	}
	if e.Data.Affected == nil {
		e.Data.Affected = []Consumer{}
	}
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encode event %s: %w", e.ID, err)
	}
	return b, nil
}
