package bot

import (
	"context"
	"fmt"
	"log/slog"
)

// CommentReader reads a pull request's comments (githubapi.Client has it).
type CommentReader interface {
	ListComments(ctx context.Context, owner, repo string, number int) ([]Comment, error)
}

// MergedState reads the bot's verified state of pull request owner/repo#n, as its
// sticky comment last said it: only a comment written by login self, signed with key
// and not edited since (docs/bot.md, "Trust"). nil when none verifies.
func MergedState(ctx context.Context, gh CommentReader, self string, key []byte, owner, repo string, n int, log *slog.Logger) (*State, error) {
	all, err := gh.ListComments(ctx, owner, repo, n)
	if err != nil {
		return nil, fmt.Errorf("read the comments of %s/%s#%d: %w", owner, repo, n, err)
	}
	return readMemory(all, self, key, PullRequest{Owner: owner, Repo: repo, Number: n}, log).State, nil
}
