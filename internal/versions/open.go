package versions

import (
	"github.com/go-git/go-git/v5"

	"github.com/contractbot/contractbot/internal/gitrepo"
)

// OpenRepository opens the repository whose .git folder is gitDir (a bare repository's
// folder, or <worktree>/.git) for indexing, with pack file descriptors kept open
// (see internal/gitrepo): go-git's PlainOpen reopens the pack file for every object
// it reads, which makes Build several times slower. Call close when done.
func OpenRepository(gitDir string) (repo *git.Repository, close func() error, err error) {
	r, err := gitrepo.Open(gitDir)
	if err != nil {
		return nil, nil, err
	}
	return r.Repository, r.Close, nil
}
