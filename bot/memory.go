package bot

import (
	"cmp"
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
