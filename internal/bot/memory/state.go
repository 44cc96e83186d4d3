// Package memory owns what the bot remembers about a pull request, and the protocol
// that keeps it where any replica can read it back and no writer of the repository
// can forge it: a signed state block at the end of the bot's own sticky comment
// (State, RenderComment, ParseState), read back only from a comment the bot's own
// login wrote, whose signature verifies, that nobody edited since (EditTolerance) and
// that is not older than the seal on the bot's check run (Keeper.Read, Keeper.Sealed);
// written in place (Keeper.Write). What was sent to Slack is also read back from Slack
// itself (internal/bot/sent.go), so a deleted, edited or restored comment never sends a
// message twice. Replicas agree on who sends a message that must go out once (a pull
// request's reminder or a team's first message, a digest, an alert) in a Ledger
// (ledger.go: signed commit statuses on the repository's first commit, the oldest
// claim sends); the comment is never written as a lock. The stages of the bot's
// pipeline call a Keeper or a Ledger; nothing else in the bot parses or writes the
// comment's state or the ledger's marks.
package memory

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/verdict"
)

// The GitHub types the memory reads and writes.
type (
	// PullRequest is the pull request a memory belongs to.
	PullRequest = githubapi.PullRequest
	// Comment is an issue comment on it.
	Comment = githubapi.Comment
)

// Marker starts the bot's one sticky comment on a pull request; the bot finds its
// comment by it, among the comments written by its own login, and edits it in place.
const Marker = "<!-- contractbot:comment -->"

// StateVersion is the version of the state block's format (2: signed).
const StateVersion = 2

// State is what the bot remembers about a pull request between events. It lives in a
// hidden block at the end of the sticky comment (the bot keeps no database): any
// replica reads it back from GitHub, and believes it only when the comment is the
// bot's own and its signature verifies.
type State struct {
	Version     int       `json:"v"`
	HeadSHA     string    `json:"head"`
	EvaluatedAt time.Time `json:"at"`
	// WrittenAt is when the bot wrote this state (just before it sent the comment):
	// a comment GitHub says was updated later than that, beyond EditTolerance, was
	// edited by someone else, and its state is not believed (memory.go).
	WrittenAt time.Time `json:"written"`
	// HeadSince is when the bot first wrote a comment showing HeadSHA (its clock): an
	// admin's override comment written before it was written against an earlier
	// verdict and is not applied to this head (override.go). Zero in states written
	// before the field existed.
	HeadSince time.Time `json:"head_since,omitzero"`
	Class     string    `json:"class"`
	// Teams is the sign-off state per team: fingerprint, since, requested at.
	Teams map[string]verdict.TeamState `json:"teams,omitempty"`
	// Reminded lists the reminder marks already sent ("12h", "2h", "overdue") per
	// team and fingerprint ("team@fingerprint"), so no replica sends one twice and a
	// new requirement starts its reminders afresh.
	Reminded map[string][]string `json:"reminded,omitempty"`
	// Override is the admin override in force, bound to the head and fingerprints it
	// waived; it is re-checked against the admin's comment at every evaluation.
	Override *verdict.Override `json:"override,omitempty"`
	// Slack holds, per team, the pull request's message in the team's channel, which
	// is edited in place; reminders are threaded under it.
	Slack map[string]SlackThread `json:"slack,omitempty"`
	// Told is, per team of indirect consumers, the fingerprint of what the change
	// does to them when the team was last told on Slack (an FYI): the same change is
	// not told twice, a change to what reaches the team is told again.
	Told map[string]string `json:"told,omitempty"`
	// Announced lists the producer announcements already made ("all-signed-off").
	Announced []string `json:"announced,omitempty"`
	// Subjects are the subjects the pull request changes, for the subject pages.
	Subjects []string `json:"subjects,omitempty"`
	// SignOffs summarises the sign-offs as last evaluated, for the sign-off pages and
	// the change events.
	SignOffs []SignOffSummary `json:"signoffs,omitempty"`
}

// SignOffSummary is one team's sign-off as the last evaluation saw it.
type SignOffSummary struct {
	Team       string    `json:"team"`
	Status     string    `json:"status"`
	Deadline   time.Time `json:"deadline"`
	ApprovedBy string    `json:"approved_by,omitempty"`
	ApprovedAt time.Time `json:"approved_at,omitzero"`
}

// SlackThread is one Slack message the bot keeps up to date.
type SlackThread struct {
	Channel string `json:"channel"`
	TS      string `json:"ts"`
	// Digest identifies the content last posted, so an unchanged message is not edited.
	Digest string `json:"digest"`
}

var (
	reState     = regexp.MustCompile(`<!-- contractbot:state ([A-Za-z0-9+/=]+) -->`)
	reSignature = regexp.MustCompile(`\n<!-- contractbot:signature v2 ([0-9a-f]{64}) -->\s*$`)
)

// DeriveStateKey derives the key that signs the bot's comments from the webhook
// secret, for when CONTRACTBOT_STATE_KEY is not set: every replica that verifies
// deliveries can sign and verify the state, and nobody without the secret can.
func DeriveStateKey(webhookSecret []byte) []byte {
	mac := hmac.New(sha256.New, webhookSecret)
	mac.Write([]byte("contractbot comment state key v2"))
	return mac.Sum(nil)
}

// Ref names a pull request in the signature, so a signed comment copied to
// another pull request does not verify there.
func Ref(pr PullRequest) string {
	return strings.ToLower(fmt.Sprintf("%s/%s#%d", pr.Owner, pr.Repo, pr.Number))
}

// canonical is the text the signature covers: GitHub may store line ends as CRLF
// and trim trailing space.
func canonical(s string) string {
	return strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), " \t\r\n")
}

func signature(key []byte, ref, body string) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("contractbot/v2\n" + ref + "\n" + canonical(body)))
	return hex.EncodeToString(mac.Sum(nil))
}

// RenderComment builds the sticky comment of pull request ref: the marker, the
// report's Markdown, the state block, and an HMAC-SHA256 signature with key over all
// of it. The state is base64-encoded JSON, so nothing in it can end the HTML comment
// early or show in the rendered page.
func RenderComment(key []byte, ref, markdown string, st State) (string, error) {
	if len(key) == 0 {
		return "", ErrNoKey
	}
	st.Version = StateVersion
	data, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("encode bot state: %w", err)
	}
	body := Marker + "\n" + markdown + "\n\n<!-- contractbot:state " + base64.StdEncoding.EncodeToString(data) + " -->"
	return body + "\n<!-- contractbot:signature v2 " + signature(key, ref, body) + " -->\n", nil
}

// IsBotComment reports whether a comment body starts with the bot's marker. Anyone can
// write the marker: only a comment written by the bot's login counts (Own).
func IsBotComment(body string) bool {
	return strings.HasPrefix(body, Marker)
}

// Errors of ParseState.
var (
	// ErrNoState: the comment has no state block.
	ErrNoState = errors.New("no state block")
	// ErrSignature: the comment's signature is missing or does not verify (the
	// comment was edited by someone, or written without the key).
	ErrSignature = errors.New("the comment's signature does not verify")
	// ErrNoKey: the bot has no key to sign or verify its state with.
	ErrNoKey = errors.New("no state key: set CONTRACTBOT_STATE_KEY or the webhook secret")
)

// ParseState verifies a sticky comment of pull request ref with key and reads its
// state block back. A comment whose signature does not verify gives ErrSignature:
// the bot then rebuilds what it needs from GitHub, never from the comment.
func ParseState(key []byte, ref, body string) (State, error) {
	if len(key) == 0 {
		return State{}, ErrNoKey
	}
	m := reSignature.FindStringSubmatchIndex(body)
	if m == nil {
		if !reState.MatchString(body) {
			return State{}, ErrNoState
		}
		return State{}, ErrSignature
	}
	signed, sig := body[:m[0]], body[m[2]:m[3]]
	if !hmac.Equal([]byte(sig), []byte(signature(key, ref, signed))) {
		return State{}, ErrSignature
	}
	blocks := reState.FindAllStringSubmatch(signed, -1)
	if len(blocks) == 0 {
		return State{}, ErrNoState
	}
	data, err := base64.StdEncoding.DecodeString(blocks[len(blocks)-1][1])
	if err != nil {
		return State{}, fmt.Errorf("decode bot state: %w", err)
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return State{}, fmt.Errorf("decode bot state: %w", err)
	}
	if st.Version != StateVersion {
		return State{}, fmt.Errorf("bot state version %d, this bot reads %d", st.Version, StateVersion)
	}
	return st, nil
}
