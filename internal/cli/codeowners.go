package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/contract"
)

func newCodeownersCmd() *cobra.Command {
	var rf repoFlags
	var check, stdout bool
	cmd := &cobra.Command{
		Use:   "codeowners",
		Short: "Write CODEOWNERS from the contract files, or check that it is current",
		Long: `codeowners derives CODEOWNERS from the tree: the producer team owns its subject
folder (contract.yaml and the schema), each consumer team its consumer file, calendar
entries their owner, and the platform team teams.yaml, freezes.yaml and CODEOWNERS.
With --check nothing is written and the exit status is 1 when the file is stale.`,
		Example: `  contractbot codeowners            # rewrite ./CODEOWNERS
  contractbot codeowners --check    # in CI: fail when CODEOWNERS is stale`,
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
			if n := tree.Diagnostics.Errors(); n > 0 {
				_ = writeDiagnostics(cmd.ErrOrStderr(), "text", tree)
				return fmt.Errorf("the tree has %d error(s); fix them (contractbot lint) before generating CODEOWNERS", n)
			}
			want := contract.Codeowners(tree)
			if stdout {
				_, err := cmd.OutOrStdout().Write(want)
				return err
			}
			if check {
				got, err := src.ReadFile(contract.CodeownersFile, contract.MaxYAMLBytes)
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
				if bytes.Equal(got, want) {
					fmt.Fprintln(cmd.OutOrStdout(), "CODEOWNERS is up to date.")
					return nil
				}
				if got == nil {
					fmt.Fprintln(cmd.ErrOrStderr(), "CODEOWNERS is missing; run `contractbot codeowners` and commit the file.")
				} else {
					fmt.Fprintln(cmd.ErrOrStderr(), "CODEOWNERS is stale; run `contractbot codeowners` and commit the result.")
				}
				return &ExitError{Code: 1}
			}
			if rf.rev != "" {
				return fmt.Errorf("--rev reads a past revision; use it with --check or --stdout")
			}
			p := filepath.Join(rf.repo, contract.CodeownersFile)
			if err := os.WriteFile(p, want, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", p)
			return nil
		},
	}
	rf.add(cmd)
	cmd.Flags().BoolVar(&check, "check", false, "fail (exit 1) when the committed CODEOWNERS differs from the generated one")
	cmd.Flags().BoolVar(&stdout, "stdout", false, "print the generated file instead of writing it")
	return cmd
}
