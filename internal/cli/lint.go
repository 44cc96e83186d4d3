package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/contract"
)

// repoFlags are the flags of every command that reads a contract tree.
type repoFlags struct {
	repo string
	rev  string
}

func (r *repoFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.repo, "repo", ".", "the contract repository (a directory; with --rev, a Git repository)")
	cmd.Flags().StringVar(&r.rev, "rev", "", "read the tree at this Git revision (HEAD~1, a branch, a commit) instead of the working directory")
}

// source opens the working directory or the revision.
func (r *repoFlags) source() (contract.Source, error) {
	if r.rev == "" {
		return contract.NewDirSource(r.repo), nil
	}
	return contract.OpenRevision(r.repo, r.rev)
}

func newLintCmd() *cobra.Command {
	var rf repoFlags
	var format string
	cmd := &cobra.Command{
		Use:   "lint",
		Short: "Check every file of the contract repository and report all problems at once",
		Long: `lint loads contracts/ and calendar/ and checks them: YAML syntax and keys, schemas
that parse, owners that exist, reads and lineage fields that exist in their schemas,
paths that stay inside the repository, and size limits. Every problem is reported with
file:line:column and what to write instead. Exit status 1 when there is any error.`,
		Example: `  contractbot lint
  contractbot lint --repo ../contracts --rev origin/main
  contractbot lint --format github    # annotations in GitHub Actions`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			src, err := rf.source()
			if err != nil {
				return err
			}
			tree, err := contract.Load(src)
			if err != nil {
				return err
			}
			if err := writeDiagnostics(cmd.OutOrStdout(), format, tree); err != nil {
				return err
			}
			if tree.Diagnostics.Errors() > 0 {
				return &ExitError{Code: 1}
			}
			return nil
		},
	}
	rf.add(cmd)
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json or github (GitHub Actions ::error lines)")
	return cmd
}

// writeDiagnostics prints a tree's diagnostics in one of the lint formats.
func writeDiagnostics(w io.Writer, format string, tree *contract.Tree) error {
	ds := tree.Diagnostics
	switch format {
	case "text":
		for _, d := range ds {
			fmt.Fprintln(w, d.String())
		}
		errs := ds.Errors()
		fmt.Fprintf(w, "%d subject(s), %d consumer(s), %d team(s): %d error(s), %d warning(s)\n",
			len(tree.Subjects), countConsumers(tree), len(tree.Teams), errs, len(ds)-errs)
		return nil
	case "json":
		out := struct {
			Subjects    int                  `json:"subjects"`
			Consumers   int                  `json:"consumers"`
			Teams       int                  `json:"teams"`
			Errors      int                  `json:"errors"`
			Diagnostics contract.Diagnostics `json:"diagnostics"`
		}{len(tree.Subjects), countConsumers(tree), len(tree.Teams), ds.Errors(), ds}
		if out.Diagnostics == nil {
			out.Diagnostics = contract.Diagnostics{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	case "github":
		for _, d := range ds {
			level := "error"
			if d.Severity == contract.Warning {
				level = "warning"
			}
			fmt.Fprintf(w, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", level, d.File, d.Line, d.Column, d.Code, escapeWorkflow(d.Message))
		}
		return nil
	}
	return fmt.Errorf("unknown --format %q: use text, json or github", format)
}

// escapeWorkflow escapes a GitHub Actions workflow command message.
func escapeWorkflow(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func countConsumers(t *contract.Tree) int {
	n := 0
	for _, s := range t.Subjects {
		n += len(s.Consumers)
	}
	return n
}
