package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
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
	var org string
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Start a contract repository: teams, one subject with a consumer, a calendar, CODEOWNERS, CI",
		Long: `init writes a working contract repository into DIR (default: the current folder):

  contracts/teams.yaml                       three teams (platform keeps the repository)
  contracts/orders/order-created/            one Avro subject, its contract.yaml and a consumer
  calendar/freezes.yaml, calendar/<date>-... a weekend freeze and a planned change
  docs/schemas/*.schema.json                 the JSON Schemas every file names on its first
                                             line (# yaml-language-server: $schema=...), so
                                             editors validate and complete as you type
  .github/workflows/contracts.yml            lint, CODEOWNERS and the verdict on pull
                                             requests; publishing on pushes to main
  CODEOWNERS, README.md

It passes 'contractbot lint' as written. init never overwrites: when one of these files
exists, it writes nothing and names them. When DIR is not inside a Git repository, init
creates one (branch main) and leaves the commit to you. Replace the example subject
with yours, set the teams' GitHub handles and Slack channels, run 'contractbot
codeowners' after adding subjects or consumers, and 'contractbot serve' to see the pages.`,
		Example: `  contractbot init contracts-repo --org acme
  cd contracts-repo && contractbot lint`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
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
			w := cmd.OutOrStdout()
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
	return cmd
}

// moduleVersion is the version of contractbot the workflow installs: this binary's,
// or "latest" for a development build.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && strings.HasPrefix(bi.Main.Version, "v") && !strings.Contains(bi.Main.Version, "+dirty") {
		return bi.Main.Version
	}
	return "latest"
}
