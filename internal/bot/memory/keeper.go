package memory

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/clock"
)

// Memory is what the bot's own sticky comment tells, once verified.
type Memory struct {
	// Comment is the bot's sticky comment: the first comment with the marker written
	// by the bot's own login (nil when there is none yet).
	Comment *Comment
	// State is the comment's state when it is believed; nil otherwise.
	State *State
	// Rebuilt: nothing the bot may have remembered is believed, and its memory is
	// rebuilt from GitHub; Notice says why, for the comment.
	Rebuilt bool
	Notice  string
}

// EditTolerance is how much later than the time signed in its state the bot's
// comment may have been last updated, as GitHub reports it (updated_at), and still be
// the bot's own write: it absorbs the skew between the bot's clock and GitHub's and
// the API's latency. Any later update is an edit by someone else (a writer can edit
// the comment, or restore an earlier signed version from its edit history), and the
// state is rebuilt.
const EditTolerance = 2 * time.Minute

// Why a memory is rebuilt, as the comment's note says it.
const (
	NoticeNoComment  = "contractbot could not verify its memory of this pull request (it found no comment of its own: this is its first evaluation, or its comment was deleted), so it rebuilt it from GitHub: sign-off clocks run from the review requests it made (or from now), and only approvals of the latest commit count."
	NoticeUnverified = "contractbot could not verify its memory of this pull request (its comment was changed by someone else, or its state is missing), so it rebuilt it from GitHub: sign-off clocks run from the review requests it made (or from now), and only approvals of the latest commit count."
	NoticeEdited     = "contractbot could not verify its memory of this pull request (its comment was edited by someone else after contractbot wrote it, or an earlier version of it was restored), so it rebuilt it from GitHub: sign-off clocks run from the review requests it made (or from now), and only approvals of the latest commit count."
	NoticeNoKey      = "contractbot could not verify its memory of this pull request (it has no key: CONTRACTBOT_STATE_KEY is not set), so it rebuilt it from GitHub: sign-off clocks run from the review requests it made (or from now), and only approvals of the latest commit count."
)

// Unkeyed is the memory of a bot without a key: it can believe nothing.
func Unkeyed() Memory { return Memory{Rebuilt: true, Notice: NoticeNoKey} }

// Comments reads and writes the pull request's comments.
type Comments interface {
	ListComments(ctx context.Context, owner, repo string, number int) ([]Comment, error)
	CreateComment(ctx context.Context, owner, repo string, number int, body string) (Comment, error)
	EditComment(ctx context.Context, owner, repo string, id int64, body string) error
}

// CheckRuns finds the bot's check run that seals its memory.
type CheckRuns interface {
	// FindCheckRun returns the newest check run called name on sha that app (the
	// App's slug; "" for any) created, if there is one.
	FindCheckRun(ctx context.Context, owner, repo, sha, name, app string) (githubapi.CheckRunRef, bool, error)
}

// Keeper keeps one bot's memory: the login it writes as, the key it signs with, its
// clock.
type Keeper struct {
	// Self is the login the bot writes as: only comments written by it are its own.
	Self string
	// Key signs and verifies the state (HMAC-SHA256).
	Key []byte
	// Clock is the bot's clock (the computer's when nil).
	Clock clock.Clock
}

func (k Keeper) now() time.Time { return clock.Now(k.Clock) }

// Own lists the comments with the marker written by login self, oldest first. A
// comment with the marker written by anyone else is not the bot's and is ignored.
func Own(all []Comment, self string, log *slog.Logger) []Comment {
	var mine []Comment
	for _, c := range all {
		if !IsBotComment(c.Body) {
			continue
		}
		if self == "" || !strings.EqualFold(c.Login, self) {
			if log != nil {
				log.Warn("a comment carries contractbot's marker but was written by someone else; it is ignored", "comment", c.ID, "author", c.Login)
			}
			continue
		}
		mine = append(mine, c)
	}
	slices.SortFunc(mine, func(a, b Comment) int { return cmp.Compare(a.ID, b.ID) })
	return mine
}

// Read finds the bot's comment among a pull request's comments and verifies its
// state. Nothing is believed (the memory is rebuilt from GitHub) when there is no
// comment of the bot's own (a first evaluation cannot be told from a deleted
// comment), when its signature does not verify, or when GitHub says it was updated
// more than EditTolerance after the time signed in it (someone else edited it, or
// restored an earlier signed version).
func (k Keeper) Read(all []Comment, pr PullRequest, log *slog.Logger) Memory {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	mine := Own(all, k.Self, log)
	if len(mine) == 0 {
		log.Info("no comment of the bot's own; its memory is rebuilt from GitHub")
		return Memory{Rebuilt: true, Notice: NoticeNoComment}
	}
	c := mine[0]
	m := Memory{Comment: &c}
	st, err := ParseState(k.Key, Ref(pr), c.Body)
	switch {
	case err != nil:
		log.Warn("the bot's comment does not verify; its state is rebuilt from GitHub", "comment", c.ID, "err", err)
		m.Rebuilt, m.Notice = true, NoticeUnverified
	case st.WrittenAt.IsZero() || c.UpdatedAt.IsZero() || c.UpdatedAt.Sub(st.WrittenAt) > EditTolerance:
		log.Warn("the bot's comment was updated after the bot wrote it; its state is rebuilt from GitHub", "comment", c.ID,
			"written_at", st.WrittenAt, "updated_at", c.UpdatedAt, "tolerance", EditTolerance)
		m.Rebuilt, m.Notice = true, NoticeEdited
	default:
		m.State = &st
	}
	return m
}

// Reread reads the pull request's comments again and the memory in them (gh must not
// answer from a cache).
func (k Keeper) Reread(ctx context.Context, gh Comments, pr PullRequest, log *slog.Logger) (Memory, error) {
	all, err := gh.ListComments(ctx, pr.Owner, pr.Repo, pr.Number)
	if err != nil {
		return Memory{}, err
	}
	return k.Read(all, pr, log), nil
}

// The seal. A writer of the repository can restore an earlier version of the bot's
// comment from its edit history; within EditTolerance of the bot's last write that
// is not told from the bot's own write by the times alone. So the bot also records
// the time it wrote the comment in its check run on the head (external_id), which
// only the App that created a check run can change: a comment whose state was written
// before the time its check run was sealed with is an earlier version, restored, and
// is not believed.

// sealPrefix starts the external_id of a sealed check run.
const sealPrefix = "contractbot-state:"

// Seal is the external_id that seals a comment written at t.
func Seal(t time.Time) string { return sealPrefix + t.UTC().Format(time.RFC3339Nano) }

// ParseSeal reads a seal; ok is false for any other external_id.
func ParseSeal(s string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(s, sealPrefix)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, rest)
	return t, err == nil
}

// App is the slug of the App the keeper's login is ("" when it is a user: token
// mode): the check runs it created carry it.
func (k Keeper) App() string {
	slug, ok := strings.CutSuffix(k.Self, "[bot]")
	if !ok {
		return ""
	}
	return slug
}

// Sealed rebuilds a verified memory whose state is older than the seal on the bot's
// check run called gate on the head that state describes. A state on a head with no
// sealed run of the bot's (a run sealed before this existed) is taken as Read
// verified it. As a user (token mode) the bot creates no check run: a run of that
// name on the commit is another App's, never its seal, and none is read.
func (k Keeper) Sealed(ctx context.Context, gh CheckRuns, pr PullRequest, m Memory, gate string, log *slog.Logger) (Memory, error) {
	if m.State == nil || m.State.HeadSHA == "" || k.App() == "" {
		return m, nil
	}
	run, found, err := gh.FindCheckRun(ctx, pr.Owner, pr.Repo, m.State.HeadSHA, gate, k.App())
	if err != nil {
		return m, fmt.Errorf("read the bot's check run on %s (it seals the bot's memory): %w", short(m.State.HeadSHA), err)
	}
	sealed, ok := ParseSeal(run.ExternalID)
	if !found || !ok || !m.State.WrittenAt.Before(sealed) {
		return m, nil
	}
	log.Warn("the bot's comment holds a state written before the one its check run was sealed with: an earlier version was restored; its state is rebuilt from GitHub",
		"comment", m.Comment.ID, "written_at", m.State.WrittenAt, "sealed", sealed)
	return Memory{Comment: m.Comment, Rebuilt: true, Notice: NoticeEdited}, nil
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// Write signs st into the comment with markdown and writes it: the bot's comment is
// edited in place, or created when there is none. WrittenAt and HeadSince are set
// when zero (now).
func (k Keeper) Write(ctx context.Context, gh Comments, pr PullRequest, st State, markdown string) (Comment, error) {
	if st.WrittenAt.IsZero() {
		st.WrittenAt = k.now().UTC()
	}
	if st.HeadSince.IsZero() {
		st.HeadSince = st.WrittenAt
	}
	body, err := RenderComment(k.Key, Ref(pr), markdown, st)
	if err != nil {
		return Comment{}, err
	}
	return upsert(ctx, gh, k.Self, pr, body)
}

// duplicateNote replaces the text of the bot's extra comments.
const duplicateNote = "<!-- contractbot:duplicate -->\nThis comment is superseded by the first contractbot comment on this pull request."

// upsert edits the bot's comment (the first with the marker written by self), or
// creates it when there is none, and returns it. Extra copies (left by a race between
// replicas) are edited to point at the first.
func upsert(ctx context.Context, gh Comments, self string, pr PullRequest, body string) (Comment, error) {
	all, err := gh.ListComments(ctx, pr.Owner, pr.Repo, pr.Number)
	if err != nil {
		return Comment{}, err
	}
	mine := Own(all, self, nil)
	if len(mine) == 0 {
		return gh.CreateComment(ctx, pr.Owner, pr.Repo, pr.Number, body)
	}
	first := mine[0]
	if first.Body != body {
		if err := gh.EditComment(ctx, pr.Owner, pr.Repo, first.ID, body); err != nil {
			return first, err
		}
	}
	for _, dup := range mine[1:] {
		if dup.Body != duplicateNote {
			if err := gh.EditComment(ctx, pr.Owner, pr.Repo, dup.ID, duplicateNote); err != nil {
				return first, err
			}
		}
	}
	return first, nil
}

// NewToken is a random token that names one round of claims (Ledger.Claim).
func NewToken() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
