package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/scaffold"
)

// initNow is the clock that dates init's planned change (tests set it).
var initNow = time.Now

func newInitCmd() *cobra.Command {
	var vb verbosity
	var org string
	var here bool
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Start a contract repository: teams, one subject with a consumer, a calendar, CODEOWNERS, CI",
		Long: `init writes a working contract repository into DIR (default: the current folder):

  contracts/teams.yaml              three teams (platform keeps the repository)
  contracts/orders/order-created/   an Avro subject, its contract, a consumer
  calendar/                         a weekend freeze and a planned change
  docs/schemas/*.schema.json        the JSON Schemas each file names on its
                                    first line, so editors validate as you type
  .github/workflows/contracts.yml   lint, CODEOWNERS and the verdict on pull
                                    requests; publishing on pushes to main
  CODEOWNERS, README.md

It passes 'contractbot lint' as written. init never overwrites: when one of these files
exists, it writes nothing and names them. When DIR is not inside a Git repository, init
creates one (branch main) and leaves the commit to you. Inside an existing repository's
work tree init writes nothing unless told to with --here: a contract repository in a
folder of another repository is not a repository of its own (check and serve would read
the enclosing repository's history), so name a folder outside it instead. Replace the
example subject with yours, set the teams' GitHub handles and Slack channels, run
'contractbot codeowners' after adding subjects, consumers or calendar entries, and
'contractbot serve' to see the pages.`,
		Example: `  contractbot init contracts-repo --org acme
  cd contracts-repo && contractbot lint`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if err := refuseInsideRepository(dir, here); err != nil {
				return err
			}
			files, err := scaffold.Files(scaffold.Options{Org: org, Now: initNow(), Version: moduleVersion()})
			if err != nil {
				return fmt.Errorf("--org: %w", err)
			}
			paths := scaffold.Paths(files)
			var exist []string
			for _, p := range paths {
				if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); err == nil {
					exist = append(exist, p)
				} else if !errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("look at %s: %w", dir, err)
				}
			}
			if len(exist) > 0 {
				return fmt.Errorf("%s already has %s; init writes nothing over existing files: run it in an empty folder", dir, strings.Join(exist, ", "))
			}
			for _, p := range paths {
				full := filepath.Join(dir, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					return fmt.Errorf("init %s: %w", dir, err)
				}
				if err := os.WriteFile(full, files[p], 0o644); err != nil {
					return fmt.Errorf("init %s: %w", dir, err)
				}
			}
			w := vb.chatty(cmd.OutOrStdout())
			fmt.Fprintf(w, "Wrote a contract repository in %s:\n", dir)
			for _, p := range paths {
				fmt.Fprintf(w, "  %s\n", p)
			}
			if _, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true}); errors.Is(err, git.ErrRepositoryNotExists) {
				if _, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
					InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")}}); err != nil {
					return fmt.Errorf("git init %s: %w", dir, err)
				}
				fmt.Fprintln(w, "and made it a Git repository (branch main, nothing committed).")
			}
			fmt.Fprintf(w, `
Next:
  1. Set the teams' GitHub handles and Slack channels in contracts/teams.yaml.
  2. Replace contracts/orders/order-created with your subjects; run 'contractbot lint'
     and then 'contractbot codeowners'.
  3. Commit, push to GitHub, and protect main with "Require review from Code Owners".
  4. 'contractbot serve' shows the catalog, the calendar and the registry on
     http://127.0.0.1:8080; the JSON Schemas for editors are at /schemas/.
`)
			return nil
		},
	}
	cmd.Flags().StringVar(&org, "org", "your-org", "the GitHub organisation of the teams' handles (@ORG/orders)")
	vb.add(cmd, "print nothing but errors (not the files written, nor the next steps)", "")
	cmd.Flags().BoolVar(&here, "here", false, "write into DIR although it is inside an existing Git repository's work tree (e.g. a new, empty clone)")
	return cmd
}

// refuseInsideRepository says why init will not write into dir when dir (or the
// nearest folder of it that exists) lies in an existing repository's work tree, unless
// here says to.
func refuseInsideRepository(dir string, here bool) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("init %s: %w", dir, err)
	}
	existing := abs
	for {
		if _, err := os.Stat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return nil
		}
		existing = parent
	}
	r, err := git.PlainOpenWithOptions(existing, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil // not in a repository (or not one go-git reads): init makes one
	}
	wt, err := r.Worktree()
	if err != nil || here {
		return nil // a bare repository has no work tree to write into by mistake
	}
	root := wt.Filesystem.Root()
	if root == abs {
		return fmt.Errorf("%s is the work tree of an existing Git repository: init writes a contract repository at the top of a repository, and this one is not new. "+
			"To write into it anyway (a new, empty clone), add --here; to start a repository of its own, name a folder outside it: contractbot init ../my-contracts", dir)
	}
	return fmt.Errorf("%s is inside the Git repository at %s: a contract repository there would not be a repository of its own, and check and serve would read %s's history and files instead of the new ones. "+
		"Name a folder outside it (contractbot init %s), or add --here to write into this work tree anyway",
		dir, root, root, filepath.Join(filepath.Dir(root), filepath.Base(abs)))
}
