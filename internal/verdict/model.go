// Package verdict assesses a change to a contract repository (Assess): base tree + head
// tree + reviews + calendar + now -> report. It is pure (no I/O, no clock of its own),
// so the CLI's `contractbot check` and the bot compute exactly the same report. The
// words: to assess is this package's pure judgement; to evaluate a pull request is
// what its callers do around it (load both trees, assess, then post or print: the
// bot's Evaluate, check's evaluateChange).
package verdict

import (
	"time"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/impact"
)

// Class is how bad a change is, for consumers.
type Class string

// The classes, from harmless to worst (DESIGN.md, Verdicts).
const (
	// Safe: nothing any consumer reads changes.
	Safe Class = "SAFE"
	// Compatible: the registry accepts it, but a field some consumer reads changes its
	// meaning or range (a promotion, a new default, new enum symbols, another logical
	// type), or the contract's governance changes.
	Compatible Class = "COMPATIBLE"
	// Breaking: the registry check fails, or a consumer reads a field that is removed or
	// changed incompatibly (even under NONE).
	Breaking Class = "BREAKING"
)

// Rank orders classes: higher is worse.
func (c Class) Rank() int {
	switch c {
	case Breaking:
		return 2
	case Compatible:
		return 1
	}
	return 0
}

func worst(a, b Class) Class {
	if b.Rank() > a.Rank() {
		return b
	}
	return a
}

// Kind says what happened to a subject between base and head.
type Kind string

// Subject change kinds.
const (
	Added    Kind = "added"
	Deleted  Kind = "deleted"
	Modified Kind = "modified"
	// Moved: the folder moved and nothing else about the subject changed; a moved
	// subject with any other change is Modified, with OldDir and a note.
	Moved Kind = "moved"
)

// Review is one pull-request review as GitHub reports it.
type Review struct {
	Login       string    `json:"login"`
	State       string    `json:"state"` // APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED
	SubmittedAt time.Time `json:"submitted_at"`
	// CommitID is the head commit the review was given on.
	CommitID string `json:"commit_id,omitempty"`
}

// TeamState is what the bot remembers about one team's sign-off between evaluations
// (kept in its sticky comment): the fingerprint of what the change does to the team's
// consumers, since when it has been the same, and when the sign-off was requested.
type TeamState struct {
	Fingerprint string `json:"fingerprint"`
	// Since is when the fingerprint appeared: approvals given before it do not count.
	Since       time.Time `json:"since,omitzero"`
	RequestedAt time.Time `json:"requested_at"`
	// Head is the head commit at which the fingerprint appeared: an approval of that
	// commit counts even when GitHub dates it before Since (the bot heard of the push
	// late). Empty when the fingerprint changed without a new head (another base).
	Head string `json:"head,omitempty"`
}

// Memory says how far the bot's memory of a pull request (Input.Prior) is believed.
type Memory int

const (
	// Remembered means Prior is the verified state of the previous evaluation; nil Prior
	// means the pull request is evaluated for the first time, and its requirements
	// date from its opening. A team absent from a non-nil Prior is required from now.
	Remembered Memory = iota
	// Rebuilt means the bot's state could not be verified (its comment was edited, or the
	// block is missing or forged), so nothing in it is believed: a team's request
	// time comes from the review requests GitHub's timeline shows (Requested), or now,
	// and only approvals of the head commit count.
	Rebuilt
)

// Override is an audited decision to let a change through without what it needs.
type Override struct {
	By     string    `json:"by"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
	// CommentID is the admin's /contractbot override comment the override comes from.
	CommentID int64 `json:"comment_id,omitempty"`
	// Head and Waived bind the override to what it waived: the head commit it was
	// given on and the fingerprints (per team, and of the change) it let through.
	Head   string            `json:"head,omitempty"`
	Waived map[string]string `json:"waived,omitempty"`
}

// Input is everything an assessment needs. Base and Head must hold at least every
// subject that changed and the subjects their lineage reaches.
//
// The seam between the two trees: Base is what the change is judged against and the
// only source of the rules; Head is what the change proposes. Everything that decides
// who signs off, by when, where they are told and what blocks comes from Base: teams
// (handles, members, Slack and escalation channels), consumers and their reads, state
// and produces (the producers a data rule asks), signoff_hours, tier, the removal
// policy and freezes. The bot hands the base branch's tip here (it judges what merging
// does to the branch as it is now); `contractbot check` hands its base. What the change
// does to those rules takes effect after the merge and is itself judged: it needs the
// sign-off of whoever it takes something from (Report.Process, docs/verdict.md,
// "Rules come from the base"). Head gives the schemas, the contract and the calendar
// entries the change plans (an entry added in the same pull request counts; a freeze
// it adds, shortens or deletes does not, until it is merged).
type Input struct {
	// Base is the tree the change is judged against, and its rules.
	Base *contract.Tree
	// Head is the tree the change proposes.
	Head *contract.Tree
	// AdminTeam is the GitHub team ("org/slug" or "@org/slug") whose sign-off a change
	// to the process itself needs (a freeze deleted or shortened, a pii mark removed):
	// the bot's --admin-team. Empty means the base's team with id "platform" (the
	// team CODEOWNERS makes owner of teams.yaml and freezes.yaml).
	AdminTeam string
	// History returns the versions of a subject's schema up to the base, oldest
	// first, the base's content among them (a content that returns is not a new
	// version): the _TRANSITIVE levels check against them, and findings name the
	// version they fail against. Nil means the history is unknown; findings then
	// count the versions compared.
	History func(subject string) []contract.Earlier
	// Author is the pull request's author (a GitHub login, without @).
	Author  string
	Reviews []Review
	// Members maps a GitHub team handle ("@acme/dw") to its members' logins.
	Members map[string][]string
	// OpenedAt is when the pull request was opened: the first request time.
	OpenedAt time.Time
	// Prior is the team state of the previous evaluation (the bot's comment).
	Prior map[string]TeamState
	// Memory says whether Prior is believed; PriorHead is the head commit Prior was
	// evaluated at.
	Memory    Memory
	PriorHead string
	// HeadSHA is the head commit evaluated (for approvals of that commit).
	HeadSHA string
	// Requested maps a GitHub handle, in lower case, to when GitHub's timeline last
	// shows its review requested (read when the memory is rebuilt).
	Requested map[string]time.Time
	Override  *Override
	// Notices are sentences the report shows under its verdict (an override that
	// lapsed, a memory rebuilt).
	Notices []string
	// SQLBreaks are the jobs whose Flink SQL (a consumer file's sql:) the change
	// breaks, as the caller found them (lineage.SQLBreaks): each needs its owner's
	// sign-off, whose reason names the file and line.
	SQLBreaks []SQLBreak
	Now       time.Time
}

// SQLBreak is a table of a job's Flink SQL that the change breaks.
type SQLBreak struct {
	Subject, Consumer, Owner string
	File                     string
	Line                     int
	Message                  string
	// Fact identifies the break for the sign-off's fingerprint (rule, table, column),
	// never the line, which moves with unrelated edits.
	Fact string
}

// Report is the outcome of an evaluation: what the bot posts and the CLI prints.
type Report struct {
	Class Class `json:"class"`
	// Ready: nothing blocks the merge (or an override waived it).
	Ready    bool             `json:"ready"`
	Subjects []*SubjectReport `json:"subjects"`
	SignOffs []*SignOff       `json:"signoffs"`
	// FYI lists the teams of indirect consumers to tell, without a sign-off.
	FYI []FYI `json:"fyi,omitempty"`
	// Deadline is the earliest deadline of a pending sign-off (zero when none).
	Deadline time.Time        `json:"deadline,omitzero"`
	Calendar []*CalendarCheck `json:"calendar"`
	// Lint lists the head tree's errors (the change makes the tree invalid).
	Lint contract.Diagnostics `json:"lint"`
	// Process lists what the change does to the rules the gate applies (teams,
	// consumer files, freezes, sign-off windows): each takes effect after the merge and
	// needs the sign-off of the team it names.
	Process  []ProcessChange `json:"process,omitempty"`
	Blockers []string        `json:"blockers"`
	Override *Override       `json:"override,omitempty"`
	Notices  []string        `json:"notices,omitempty"`
	// State is the team state to remember for the next evaluation.
	State map[string]TeamState `json:"state"`
	Now   time.Time            `json:"evaluated_at"`
}

// SubjectReport is the evaluation of one changed subject.
type SubjectReport struct {
	Subject    string `json:"subject"`
	Kind       Kind   `json:"kind"`
	Dir        string `json:"dir"`
	OldDir     string `json:"old_dir,omitempty"`
	Format     string `json:"format"`
	Owner      string `json:"owner"`
	Tier       string `json:"tier"`
	SchemaFile string `json:"schema_file"`
	Class      Class  `json:"class"`
	// Level is the head's compatibility level; OldLevel the base's when it changed.
	Level    string `json:"level"`
	OldLevel string `json:"old_level,omitempty"`
	// Compatible is the registry check's outcome at Level.
	Compatible bool `json:"compatible"`
	// SchemaUnchanged: a modified subject whose schema and level did not change (its
	// owner, tier, topic or data contract did), so no registry check ran.
	SchemaUnchanged bool              `json:"schema_unchanged,omitempty"`
	Findings        []checker.Finding `json:"findings"`
	Changes         []checker.Change  `json:"changes"`
	Affected        []impact.Affected `json:"affected"`
	// Policy lists what the subject's policy makes of the change beyond the wire
	// check and the declared readers (removals without deprecation).
	Policy []PolicyFinding `json:"policy,omitempty"`
	// State lists what the change does to fields stateful jobs keep in state.
	State []StateEffect `json:"state,omitempty"`
	// DataRules are the contract's data rules the change breaks.
	DataRules []RuleFinding `json:"data_rules,omitempty"`
	// DataContract lists the changes to the data contract's rules and tags.
	DataContract []ContractChange `json:"data_contract,omitempty"`
	// Group is set when the change starts a new compatibility group (a new major
	// version): which readers are on which group, and what the migration lacks.
	Group *GroupChange `json:"group,omitempty"`
	// Governance lists changes to the contract that consumers must agree to.
	Governance []string `json:"governance,omitempty"`
	// governs are the facts behind Governance, in its order: what the sign-off
	// fingerprints hash instead of the sentences.
	governs []string
	// Notes are other facts worth telling (tier, topic, sign-off window changed).
	Notes []string `json:"notes,omitempty"`
	// Deprecated lists the consumers that read a field this change deprecates (one
	// the base did not, or deprecated otherwise), each with its team: the teams that
	// do not sign off anyway are told (FYI.Deprecated).
	Deprecated []DeprecatedRead `json:"deprecated,omitempty"`
	// Warnings are facts the author should act on that do not block the change (a
	// schema returning to an earlier version, which the registry will not make the
	// latest).
	Warnings []string `json:"warnings,omitempty"`
	// Error is set when the subject could not be evaluated (its schema does not parse).
	Error string `json:"error,omitempty"`
}

// DeprecatedRead is a consumer that reads a field the change deprecates: Fields holds
// the deprecated field, Reason since when, until when and what to read instead.
type DeprecatedRead struct {
	Team string `json:"team"`
	ConsumerRef
}

// ConsumerRef names one consumer and why its team must sign off, or (Consumer empty)
// the change to a rule of the base (teams.yaml, a freeze, a subject's signoff_hours or
// pii marks) that needs the team's sign-off.
type ConsumerRef struct {
	Subject  string `json:"subject,omitempty"`
	Consumer string `json:"consumer,omitempty"`
	// File is the file whose change needs the sign-off, for a change to a rule.
	File   string         `json:"file,omitempty"`
	Effect checker.Effect `json:"effect"`
	// Fields are the fields of its subject that change for it.
	Fields []string `json:"fields"`
	Reason string   `json:"reason"`
	// Chains are the lineage paths from the changed field to the consumer's
	// ("subject.field -> via -> subject.field", origin first); set for FYIs.
	Chains []string `json:"chains,omitempty"`
	// facts are what the sign-off's fingerprint hashes: the kinds of changes to the
	// fields, rules or files the consumer depends on, never the sentences.
	facts []string
	// legacy is the reason as earlier releases hashed it (legacyFingerprint).
	legacy string
}

// SignOff is one team's required approval.
type SignOff struct {
	Team    string        `json:"team"`
	Handles []string      `json:"handles"`
	For     []ConsumerRef `json:"for"`
	// Fingerprint identifies what the change does to this team's consumers; an approval
	// given for another fingerprint does not count.
	Fingerprint string    `json:"fingerprint"`
	RequestedAt time.Time `json:"requested_at"`
	Deadline    time.Time `json:"deadline"`
	Status      Status    `json:"status"`
	ApprovedBy  string    `json:"approved_by,omitempty"`
	ApprovedAt  time.Time `json:"approved_at,omitzero"`
	// Dropped says why an earlier approval no longer counts.
	Dropped string `json:"dropped,omitempty"`
}

// Status of a sign-off.
type Status string

// Sign-off states.
const (
	Approved Status = "approved"
	Pending  Status = "pending"
	Overdue  Status = "overdue"
)

// CalendarCheck is whether a subject's change has the calendar entry it needs.
type CalendarCheck struct {
	Subject  string `json:"subject"`
	Required bool   `json:"required"`
	// Entry is the calendar file that covers the change, when found.
	Entry    string   `json:"entry,omitempty"`
	Problems []string `json:"problems,omitempty"`
	// Conflicts lists the other planned changes whose windows overlap the entry's and
	// that touch the same subjects or consumers (flagged, not blocking).
	Conflicts []string `json:"conflicts,omitempty"`
	// FrozenUntil is set when a freeze in scope blocks the merge now.
	Freeze      string    `json:"freeze,omitempty"`
	FrozenUntil time.Time `json:"frozen_until,omitzero"`
	// StateMigration: a job's state holds fields the change alters, so a
	// state-migration entry is needed; StateEntry is the one found.
	StateMigration bool   `json:"state_migration,omitempty"`
	StateEntry     string `json:"state_entry,omitempty"`
	// Suggestion is a ready-to-commit calendar entry when none was found.
	SuggestionFile string `json:"suggestion_file,omitempty"`
	Suggestion     string `json:"suggestion,omitempty"`
}
