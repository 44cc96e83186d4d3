package bot

import (
	"context"
	"fmt"
	"sort"
)

// PullRequestState is the bot's last evaluation of one open pull request, read back
// from its sticky comment.
type PullRequestState struct {
	Owner, Repo string
	Number      int
	URL         string
	State       State
}

// OpenStates reads the bot's state of every open pull request of the repositories
// (the sign-off pages show them): the bot keeps no database, so this is the comment
// state of each.
func (b *Bot) OpenStates(ctx context.Context, repos []Repository) ([]PullRequestState, error) {
	var out []PullRequestState
	for _, r := range repos {
		gh, _, err := b.clients(ctx, r.Owner, r.Name, 0)
		if err != nil {
			return nil, err
		}
		numbers, err := gh.OpenPullRequests(ctx, r.Owner, r.Name)
		if err != nil {
			return nil, err
		}
		for _, n := range numbers {
			comments, err := gh.ListComments(ctx, r.Owner, r.Name, n)
			if err != nil {
				return nil, err
			}
			pr := PullRequest{Owner: r.Owner, Repo: r.Name, Number: n}
			if m := readMemory(comments, b.Self, b.StateKey, pr, b.Log); m.State != nil {
				out = append(out, PullRequestState{Owner: r.Owner, Repo: r.Name, Number: n,
					URL: fmt.Sprintf("https://github.com/%s/%s/pull/%d", r.Owner, r.Name, n), State: *m.State})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Owner+out[i].Repo != out[j].Owner+out[j].Repo {
			return out[i].Owner+out[i].Repo < out[j].Owner+out[j].Repo
		}
		return out[i].Number < out[j].Number
	})
	return out, nil
}
