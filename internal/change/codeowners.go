package change

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/checker/located"
	"github.com/contractbot/contractbot/internal/contract"
)

// codeownersErrors is `contractbot codeowners --check` for a change, so that the gate
// lists it among its blockers even when the workflow's codeowners step failed: when
// the base keeps a CODEOWNERS, the head's must be what `contractbot codeowners` writes
// for the head's tree. A change to teams.yaml or to CODEOWNERS itself (a team's
// handle is on every line it owns) is checked against the whole head tree, read
// without schemas; any other change against the sections of the subjects it loaded
// (each must be in the file as generated) and of the subjects it deleted (each must
// be gone), with the header and the planned changes. An overlay (`check --overlay`,
// a sketch of a change that is no commit yet) is not held to it.
func codeownersErrors(base, head contract.Source, l *Loaded) (contract.Diagnostics, error) {
	if _, sketch := head.(*contract.Overlay); sketch {
		return nil, nil
	}
	bc, err := base.ReadFile(contract.CodeownersFile, maxCodeowners)
	if err != nil {
		return nil, nil // the base keeps no CODEOWNERS it can be held to
	}
	hc, err := head.ReadFile(contract.CodeownersFile, maxCodeowners)
	if errors.Is(err, fs.ErrNotExist) {
		return stale(contract.CodeownersFile + " is deleted; GitHub then asks no team to review its files. Run `contractbot codeowners` and commit the result."), nil
	}
	if err != nil {
		return stale(fmt.Sprintf("%s cannot be read (%v); GitHub reads a CODEOWNERS of at most 3 MB. Run `contractbot codeowners` and commit the result.", contract.CodeownersFile, err)), nil
	}
	if !bytes.Equal(bc, hc) || teamsChanged(base, head) {
		whole, err := contract.LoadWithoutSchemas(head)
		if err != nil {
			return nil, fmt.Errorf("load %s to check its %s: %w", head.Describe(), contract.CodeownersFile, err)
		}
		if whole.Diagnostics.Errors() > 0 || bytes.Equal(hc, contract.Codeowners(whole)) {
			return nil, nil // a broken tree is lint's to report; codeowners refuses it too
		}
		return stale(contract.CodeownersFile + " does not match the contract files; run `contractbot codeowners` and commit the result."), nil
	}
	have := map[string]bool{}
	for _, section := range strings.Split(string(hc), "\n\n") {
		have[strings.TrimSuffix(section, "\n")] = true
	}
	var missing []string
	for _, section := range strings.Split(string(contract.Codeowners(l.Head)), "\n\n") {
		if !have[strings.TrimSuffix(section, "\n")] {
			first, _, _ := strings.Cut(section, "\n")
			missing = append(missing, strings.TrimPrefix(first, "# "))
		}
	}
	for _, b := range l.Base.Subjects {
		if l.Head.Subject(b.Subject) != nil {
			continue
		}
		for section := range have {
			if strings.HasPrefix(section, "# "+b.Subject+", produced by ") {
				missing = append(missing, b.Subject+" (deleted)")
			}
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	slices.Sort(missing)
	return stale(fmt.Sprintf("%s does not match the contract files (%s); run `contractbot codeowners` and commit the result.", contract.CodeownersFile, strings.Join(missing, "; "))), nil
}

// maxCodeowners is GitHub's limit on a CODEOWNERS file (3 MB).
const maxCodeowners = 3 << 20

func stale(msg string) contract.Diagnostics {
	return contract.Diagnostics{{Span: located.Span{File: contract.CodeownersFile, Line: 1, Column: 1}, Severity: contract.Error, Code: contract.CodeCodeownersStale, Message: msg}}
}
