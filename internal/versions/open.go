package versions

import (
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// OpenRepository opens the repository whose .git folder is gitDir (a bare repository's
// folder, or <worktree>/.git) for indexing. Unlike git.PlainOpen it keeps pack file
// descriptors open: go-git otherwise reopens the pack file for every object it reads,
// which makes Build several times slower. Call close when done.
func OpenRepository(gitDir string) (repo *git.Repository, close func() error, err error) {
	st := filesystem.NewStorageWithOptions(osfs.New(gitDir), cache.NewObjectLRUDefault(),
		filesystem.Options{KeepDescriptors: true})
	repo, err = git.Open(st, nil)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return repo, st.Close, nil
}
