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
// dir, whose repository on GitHub is gh.
func branchDigest(gh bot.Repository, dir, branch string, sampler *sample.Watch) bot.Digest {
	if branch == "" {
		branch = "HEAD"
	}
	return bot.Digest{Repo: gh, Branch: servedBranch{dir: dir, branch: branch, sampler: sampler}}
}

// servedBranch is the branch serve serves, as the digest reads it: the marks on its
// first commit, the report of its head as `contractbot report` builds it (schemas
// not loaded), with the sampler's last result.
type servedBranch struct {
	dir, branch string
	sampler     *sample.Watch // nil without one
}

func (s servedBranch) Root(context.Context) (string, error) { return firstCommit(s.dir, s.branch) }

func (s servedBranch) Health(_ context.Context, now time.Time) (*report.Health, *contract.Tree, error) {
	// As buildReport: the history's handle and index go before the tree is read.
	repo, err := gitrepo.OpenWithCache(s.dir, gitrepo.PassObjectCache)
	if err != nil {
		return nil, nil, err
	}
	head, err := gitrepo.ResolveBranch(repo.Repository, s.branch)
	if err != nil {
		repo.Close()
		return nil, nil, err
	}
	ix, broken, err := auditHistory(repo, head)
	repo.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("audit the history of %s: %w", s.dir, err)
	}
	indexed := report.IndexedOf(ix)
	tree, err := loadWithoutSchemas(s.dir, head)
	if err != nil {
		return nil, nil, fmt.Errorf("load the tree of %s at %s: %w", s.dir, head, err)
	}
	r := report.BuildIndexed(tree, indexed, broken, now)
	if s.sampler != nil {
		if sampled, _ := (sampled{s.sampler}).Sampled(); sampled != nil {
			r.SetSampled(sampled)
		}
	}
	return r, tree, nil
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
