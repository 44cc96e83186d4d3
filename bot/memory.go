package bot

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
)

// memory is what the bot's own sticky comment tells, once verified.
type memory struct {
	// comment is the bot's sticky comment: the first comment with the marker written
	// by the bot's own login (nil when there is none yet).
	comment *Comment
	// state is the comment's state when its signature verifies; nil otherwise.
	state *State
	// rebuilt: nothing the bot may have remembered is believed, and its memory is
	// rebuilt from GitHub; notice says why, for the comment.
	rebuilt bool
	notice  string
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
	rebuiltNoComment  = "contractbot could not verify its memory of this pull request (it found no comment of its own: this is its first evaluation, or its comment was deleted), so it rebuilt it from GitHub: sign-off clocks run from the review requests it made (or from now), and only approvals of the latest commit count."
	rebuiltUnverified = "contractbot could not verify its memory of this pull request (its comment was changed by someone else, or its state is missing), so it rebuilt it from GitHub: sign-off clocks run from the review requests it made (or from now), and only approvals of the latest commit count."
	rebuiltEdited     = "contractbot could not verify its memory of this pull request (its comment was edited by someone else after contractbot wrote it, or an earlier version of it was restored), so it rebuilt it from GitHub: sign-off clocks run from the review requests it made (or from now), and only approvals of the latest commit count."
	rebuiltNoKey      = "contractbot could not verify its memory of this pull request (it has no key: CONTRACTBOT_STATE_KEY is not set), so it rebuilt it from GitHub: sign-off clocks run from the review requests it made (or from now), and only approvals of the latest commit count."
)

// ownComments are the comments with the marker written by login self, oldest first.
// A comment with the marker written by anyone else is not the bot's and is ignored.
func ownComments(all []Comment, self string, log *slog.Logger) []Comment {
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

// readMemory finds the bot's comment among a pull request's comments and verifies
// its state with key. Nothing is believed (the memory is rebuilt from GitHub) when
// there is no comment of the bot's own (a first evaluation cannot be told from a
// deleted comment), when its signature does not verify, or when GitHub says it was
// updated more than EditTolerance after the time signed in it (someone else edited
// it, or restored an earlier signed version).
func readMemory(all []Comment, self string, key []byte, pr PullRequest, log *slog.Logger) memory {
	mine := ownComments(all, self, log)
	if len(mine) == 0 {
		if log != nil {
			log.Info("no comment of the bot's own; its memory is rebuilt from GitHub")
		}
		return memory{rebuilt: true, notice: rebuiltNoComment}
	}
	c := mine[0]
	m := memory{comment: &c}
	st, err := ParseState(key, commentRef(pr), c.Body)
	switch {
	case err != nil:
		log.Warn("the bot's comment does not verify; its state is rebuilt from GitHub", "comment", c.ID, "err", err)
		m.rebuilt, m.notice = true, rebuiltUnverified
	case st.WrittenAt.IsZero() || c.UpdatedAt.IsZero() || c.UpdatedAt.Sub(st.WrittenAt) > EditTolerance:
		log.Warn("the bot's comment was updated after the bot wrote it; its state is rebuilt from GitHub", "comment", c.ID,
			"written_at", st.WrittenAt, "updated_at", c.UpdatedAt, "tolerance", EditTolerance)
		m.rebuilt, m.notice = true, rebuiltEdited
	default:
		m.state = &st
	}
	return m
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

// sealOf is the external_id that seals a comment written at t.
func sealOf(t time.Time) string { return sealPrefix + t.UTC().Format(time.RFC3339Nano) }

// parseSeal reads a seal; ok is false for any other external_id.
func parseSeal(s string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(s, sealPrefix)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, rest)
	return t, err == nil
}

// app is the slug of the App the bot acts as ("" when it acts as a user): the check
// runs it created carry it.
func (b *Bot) app() string {
	slug, ok := strings.CutSuffix(b.Self, "[bot]")
	if !ok {
		return ""
	}
	return slug
}

// checkSeal rebuilds a verified memory whose state is older than the seal on the
// bot's check run of the head that state describes (see above). A state on a head
// with no sealed run of the bot's (token mode, or a run sealed before this existed)
// is taken as readMemory verified it.
func (b *Bot) checkSeal(ctx context.Context, gh checkRuns, pr PullRequest, m memory, log *slog.Logger) (memory, error) {
	if m.state == nil || m.state.HeadSHA == "" || b.app() == "" {
		// As a user (token mode) the bot creates no check run: a run of that name
		// on the commit is another App's, never its seal.
		return m, nil
	}
	run, found, err := gh.FindCheckRun(ctx, pr.Owner, pr.Repo, m.state.HeadSHA, GateName(pr.BaseRef), b.app())
	if err != nil {
		return m, fmt.Errorf("read the bot's check run on %s (it seals the bot's memory): %w", shortSHA(m.state.HeadSHA), err)
	}
	sealed, ok := parseSeal(run.ExternalID)
	if !found || !ok || !m.state.WrittenAt.Before(sealed) {
		return m, nil
	}
	log.Warn("the bot's comment holds a state written before the one its check run was sealed with: an earlier version was restored; its state is rebuilt from GitHub",
		"comment", m.comment.ID, "written_at", m.state.WrittenAt, "sealed", sealed)
	return memory{comment: m.comment, rebuilt: true, notice: rebuiltEdited}, nil
}
