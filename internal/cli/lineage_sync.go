package cli

import "github.com/spf13/cobra"

func newLineageSyncCmd() *cobra.Command {
	return &cobra.Command{Use: "sync", Hidden: true, RunE: func(*cobra.Command, []string) error { return nil }}
}
