package cli

import (
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/formats"
	"github.com/contractbot/contractbot/internal/contract"
)

// flagEnums are the values of every flag that takes one of a fixed set, by command
// path and flag: the shell completes them (cobra's __complete), and
// TestCompletionEnums keeps the table true to each flag's usage.
func flagEnums() map[string]map[string][]string {
	levels := make([]string, 0, 7)
	for _, l := range checker.Levels() {
		levels = append(levels, string(l))
	}
	textJSON := []string{"text", "json"}
	sasl := []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}
	return map[string]map[string][]string{
		"calendar":      {"format": {"text", "json", "ics"}},
		"check":         {"format": {"text", "markdown", "json", "github"}, "fail-on": {"not-ready", "breaking"}},
		"compat":        {"format": formats.Names(), "level": levels, "rules": {"WIRE", "WIRE_JSON"}},
		"impact":        {"format": textJSON},
		"lineage check": {"format": {"text", "json", "github"}},
		"lineage sql":   {"format": textJSON},
		"lineage sync":  {"kind": contract.ConsumerKinds},
		"lint":          {"format": {"text", "json", "github"}},
		"registry diff": {"format": textJSON},
		"report":        {"format": {"text", "json", "markdown"}},
		"sample":        {"format": textJSON, "sasl-mechanism": sasl},
		"serve": {"log-format": {"json", "text"}, "log-level": {"debug", "info", "warn", "error"},
			"sample-sasl-mechanism": sasl},
	}
}

// teamFlags name the flags whose value is a team of teams.yaml.
var teamFlags = map[string][]string{
	"calendar":     {"team"},
	"lineage sync": {"owner"},
}

// setCompletion registers the completions of every command of the tree rooted at
// root: fixed values for enum flags, teams read from the repository for team flags,
// the contracts' topics for sample --topic, and subjects (and SUBJECT:FIELD paths)
// for impact's argument.
func setCompletion(root *cobra.Command) {
	enums := flagEnums()
	walk(root, func(c *cobra.Command) {
		path := strings.TrimPrefix(c.CommandPath(), root.Name()+" ")
		for flag, values := range enums[path] {
			_ = c.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
		}
		for _, flag := range teamFlags[path] {
			_ = c.RegisterFlagCompletionFunc(flag, completeTeams)
		}
		if path == "sample" {
			_ = c.RegisterFlagCompletionFunc("topic", completeTopics)
		}
	})
}

// completionRepo is the repository a completion reads: --repo, or the [DIR]
// argument of a command that takes one (PreRunE, which sets --repo from it, does not
// run while completing).
func completionRepo(cmd *cobra.Command, args []string) contract.Source {
	dir := "."
	if f := cmd.Flags().Lookup("repo"); f != nil {
		dir = f.Value.String()
	}
	if len(args) == 1 && repoArgCommands[strings.TrimPrefix(cmd.CommandPath(), "contractbot ")] {
		dir = args[0]
	}
	if f := cmd.Flags().Lookup("rev"); f != nil && f.Value.String() != "" {
		if src, err := contract.OpenRevision(dir, f.Value.String()); err == nil {
			return src
		}
	}
	return contract.NewDirSource(dir)
}

// completeTeams completes a team name of the repository's teams.yaml.
func completeTeams(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	tree, err := contract.LoadSubjects(completionRepo(cmd, args), nil, map[string]string{})
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	return withPrefix(tree.TeamIDs(), toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeTopics completes a topic that a contract of the repository names.
func completeTopics(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	tree, err := contract.Load(completionRepo(cmd, args))
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	var topics []string
	for _, s := range tree.Subjects {
		if s.Topic != "" && !slices.Contains(topics, s.Topic) {
			topics = append(topics, s.Topic)
		}
	}
	sort.Strings(topics)
	return withPrefix(topics, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeSubjectField completes impact's SUBJECT[:FIELD.PATH]: a subject name, then,
// after the colon, the subject's field paths.
func completeSubjectField(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	src := completionRepo(cmd, nil)
	index, err := contract.IndexSubjects(src)
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	subject, field, hasField := strings.Cut(toComplete, ":")
	if !hasField {
		names := make([]string, 0, len(index))
		for n := range index {
			names = append(names, n)
		}
		sort.Strings(names)
		return withPrefix(names, subject), cobra.ShellCompDirectiveNoFileComp
	}
	dir, ok := index[subject]
	if !ok {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	tree, err := contract.LoadSubjects(src, []string{dir}, index)
	if err != nil || tree.Subject(subject) == nil {
		return nil, cobra.ShellCompDirectiveError
	}
	var out []string
	for _, p := range withPrefix(tree.Subject(subject).FieldPaths(), field) {
		out = append(out, subject+":"+p)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// withPrefix keeps the names that start with prefix.
func withPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}
