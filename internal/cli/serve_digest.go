package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/contractbot/contractbot/internal/bot"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/report"
	"github.com/contractbot/contractbot/internal/sample"
)

// branchDigest is the monthly digest of the branch serve serves from the clone at
// dir, whose repository on GitHub is gh: the marks on the branch's first commit, the
// report of its head as `contractbot report` builds it (schemas not loaded).
func branchDigest(gh bot.Repository, dir, branch string, sampler *sample.Watch) bot.Digest {
	if branch == "" {
		branch = "HEAD"
	}
	return bot.Digest{
		Repo: gh,
		Root: func(context.Context) (string, error) { return firstCommit(dir, branch) },
		Health: func(_ context.Context, now time.Time) (*report.Health, *contract.Tree, error) {
			repo, err := gitrepo.Open(dir)
			if err != nil {
				return nil, nil, err
			}
			defer repo.Close()
			head, err := gitrepo.ResolveBranch(repo.Repository, branch)
			if err != nil {
				return nil, nil, err
			}
			ix, broken, err := auditHistory(repo, head)
			if err != nil {
				return nil, nil, fmt.Errorf("audit the history of %s: %w", dir, err)
			}
			tree, err := loadWithoutSchemas(dir, head)
			if err != nil {
				return nil, nil, fmt.Errorf("load the tree of %s at %s: %w", dir, head, err)
			}
			r := report.Build(tree, ix, broken, now)
			if sampler != nil {
				if s, _ := (sampled{sampler}).Sampled(); s != nil {
					r.SetSampled(s)
				}
			}
			return r, tree, nil
		},
	}
}

// firstCommit is the first commit of branch's first-parent history in the clone at
// dir: where the bot's ledgers of once-only messages live (the same for every
// replica).
func firstCommit(dir, branch string) (string, error) {
	repo, err := gitrepo.Open(dir)
	if err != nil {
		return "", err
	}
	defer repo.Close()
	head, err := gitrepo.ResolveBranch(repo.Repository, branch)
	if err != nil {
		return "", err
	}
	root, err := bot.FirstCommit(repo.Repository, head)
	return root.String(), err
}
