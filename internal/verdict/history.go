package verdict

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/located"
	"github.com/contractbot/contractbot/internal/contract"
)

// MaxHistoryBytes bounds the text of the earlier versions one subject's _TRANSITIVE
// check parses (the base's version aside): 4 MiB is a hundred versions of a 40 KB
// schema, or four of a 29,000-field Protobuf message (about 3 s of compilation each
// on one core). A
// history past it is checked newest first; the versions left out make the check fail
// (the registry compares against all of them), never pass unseen.
const MaxHistoryBytes = 4 << 20

// parseHistory parses the earlier versions a _TRANSITIVE check compares against,
// newest first within MaxHistoryBytes. A version that no longer parses (an import it
// used is gone) is noted and left out; skipped is the finding that names the versions
// past the budget, or nil.
func parseHistory(in Input, eng checker.Engine, b, h *contract.Subject, history []numbered, sr *SubjectReport) (prev []checker.Version, skipped *checker.Finding) {
	budget := MaxHistoryBytes
	var over []int
	for i := len(history) - 1; i >= 0; i-- {
		hi := history[i]
		if len(over) > 0 || len(hi.Data) > budget {
			over = append(over, hi.version)
			continue
		}
		budget -= len(hi.Data)
		src := checker.ParseInput{
			Input:   hi.Input,
			Name:    strings.TrimPrefix(b.SchemaFile, contract.ContractsDir+"/"),
			Resolve: in.Base.ReadImport,
			Record:  b.Message,
		}
		s, err := eng.Parse(src)
		if err != nil {
			sr.Notes = append(sr.Notes, fmt.Sprintf("version %d was not compared: it does not parse with the tree's files today (%v); the registry compares against the version it stored", hi.version, err))
			continue
		}
		prev = append(prev, checker.Version{Schema: s, Number: hi.version})
	}
	slices.Reverse(prev)
	if len(over) == 0 {
		return prev, nil
	}
	slices.Sort(over)
	return prev, &checker.Finding{
		Rule: "HISTORY_OVER_BUDGET", Span: located.Span{File: h.SchemaFile, Line: 1, Column: 1}, Against: over[len(over)-1],
		Message: fmt.Sprintf("%s could not be compared with %s: with the newer versions they exceed the %d MiB of schema text one check reads, and the registry compares a %s schema with every earlier version. Compare them yourself (contractbot compat OLD NEW --level %s, one per version), then ask an admin to override, or lower the level to one that is not _TRANSITIVE.",
			h.SchemaFile, versionRange(over), MaxHistoryBytes>>20, h.Compatibility, h.Compatibility),
	}
}

// versionRange names versions: "version 3", "versions 1 to 4", "versions 1, 3 and 4".
func versionRange(vs []int) string {
	switch {
	case len(vs) == 1:
		return fmt.Sprintf("version %d", vs[0])
	case vs[len(vs)-1]-vs[0] == len(vs)-1:
		return fmt.Sprintf("versions %d to %d", vs[0], vs[len(vs)-1])
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.Itoa(v)
	}
	return "versions " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
