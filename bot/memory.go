package bot

import (
	"cmp"
	"log/slog"
	"slices"
	"strings"
)

// memory is what the bot's own sticky comment tells, once verified.
type memory struct {
	// comment is the bot's sticky comment: the first comment with the marker written
	// by the bot's own login (nil when there is none yet).
	comment *Comment
	// state is the comment's state when its signature verifies; nil otherwise.
	state *State
	// rebuilt: the bot has a comment but its state does not verify (edited by
	// someone, forged, or written without the key), so it is rebuilt from GitHub.
	rebuilt bool
}

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
// its state with key.
func readMemory(all []Comment, self string, key []byte, pr PullRequest, log *slog.Logger) memory {
	mine := ownComments(all, self, log)
	if len(mine) == 0 {
		return memory{}
	}
	m := memory{comment: &mine[0]}
	st, err := ParseState(key, commentRef(pr), mine[0].Body)
	if err == nil {
		m.state = &st
	} else {
		log.Warn("the bot's comment does not verify; its state is rebuilt from GitHub", "comment", mine[0].ID, "err", err)
		m.rebuilt = true
	}
	return m
}
