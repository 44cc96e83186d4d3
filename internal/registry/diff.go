package registry

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sync/errgroup"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/versions"
)

// fileAt reads a file of repo at a commit (a contract.yaml, at most
// contract.MaxSchemaBytes).
func fileAt(repo *git.Repository, commit, p string) ([]byte, error) {
	c, err := repo.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, err
	}
	t, err := c.Tree()
	if err != nil {
		return nil, err
	}
	e, err := t.FindEntry(p)
	if err != nil {
		return nil, err
	}
	return gitrepo.ReadBlob(repo.Storer, e.Hash, contract.MaxSchemaBytes)
}

// DriftKind names one kind of difference between Git and a live registry.
type DriftKind string

// The kinds of drift.
const (
	// Missing: a version in Git is not registered (no registry version has its text).
	Missing DriftKind = "missing"
	// Unregistered: a registry version has a text no Git version has; it was
	// registered behind Git's back.
	Unregistered DriftKind = "unregistered"
	// UnknownSubject: a registry subject that Git never had.
	UnknownSubject DriftKind = "unknown_subject"
	// DeletedSubject: a subject deleted from the contract tree is still registered.
	DeletedSubject DriftKind = "deleted_subject"
	// LevelDiffers: the registry's compatibility level for a subject is not Git's.
	LevelDiffers DriftKind = "level"
	// DataContractDiffers: the registry has a Git version's schema, but not with its
	// metadata and rules.
	DataContractDiffers DriftKind = "data_contract"
)

// Drift is one difference, with a sentence saying what to do about it.
type Drift struct {
	Kind    DriftKind `json:"kind"`
	Subject string    `json:"subject"`
	// Version is the Git version (missing) or the registry version (unregistered).
	Version int `json:"version,omitempty"`
	// ID is the Git schema id (missing) or the registry's (unregistered).
	ID       int    `json:"id,omitempty"`
	Git      string `json:"git,omitempty"`      // Git's level (level)
	Registry string `json:"registry,omitempty"` // the registry's level (level)
	// Differences names each difference of a data contract (data_contract).
	Differences []string `json:"differences,omitempty"`
	Message     string   `json:"message"`
}

// DriftReport is the result of Diff.
type DriftReport struct {
	Head     string  `json:"head"`     // the Git commit compared
	Subjects int     `json:"subjects"` // subjects compared
	Drift    []Drift `json:"drift"`
}

// Diff compares the versions index ix of repo (Git, the source of truth) with the
// registry c talks to. Versions are matched by canonical form (checker.Canonical, as
// the embedded registry's look-up and a Confluent registry match them: layout and
// the order of the keys a format reads do not count), not by version number or id: a registry
// that was populated by other means numbers them its own way. A Git version whose form
// no registry version has is looked up in the registry (POST /subjects/{s}?normalize=true)
// before it is called missing: a registry that stores an equivalent text of its own
// finds it, and the version it answers is not unregistered either. A subject without its
// own level in the registry is compared at the registry's global level.
func Diff(ctx context.Context, c *Client, repo *git.Repository, ix *versions.Index) (*DriftReport, error) {
	b := builder{contractAt: func(v versions.Version) ([]byte, error) {
		return fileAt(repo, v.Commit, path.Dir(v.Path)+"/"+contract.ContractFile)
	}}
	snap, err := b.build(ix, func(v versions.Version) ([]byte, error) { return ix.Schema(repo, v) })
	if err != nil {
		return nil, err
	}
	return diffSnapshot(ctx, c, snap)
}

// diffWorkers bounds the subjects compared at once (each is a few requests).
const diffWorkers = 8

func diffSnapshot(ctx context.Context, c *Client, snap *snapshot) (*DriftReport, error) {
	rep := &DriftReport{Head: snap.head, Drift: []Drift{}}
	regSubjects, err := c.Subjects(ctx)
	if err != nil {
		return nil, err
	}
	inRegistry := map[string]bool{}
	for _, s := range regSubjects {
		inRegistry[s] = true
	}
	global, err := c.GetConfig(ctx, "")
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(snap.subjects))
	for s, se := range snap.subjects {
		names = append(names, s)
		if !se.deleted {
			rep.Subjects++
		}
	}
	sort.Strings(names)
	// Compare subjects in parallel; each result goes to its own slot so that the
	// report's order does not depend on timing.
	results := make([][]Drift, len(names))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(diffWorkers)
	for i, name := range names {
		g.Go(func() error {
			d, err := diffSubject(gctx, c, snap.subjects[name], inRegistry[name], global)
			results[i] = d
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for _, d := range results {
		rep.Drift = append(rep.Drift, d...)
	}
	for _, name := range regSubjects {
		if snap.subjects[name] == nil {
			rep.Drift = append(rep.Drift, Drift{Kind: UnknownSubject, Subject: name,
				Message: fmt.Sprintf("%s is in the registry but has never been in the contract repository; add a contract folder for it through a pull request, or delete it from the registry.", name)})
		}
	}
	return rep, nil
}

// diffSubject compares one Git subject with the registry.
func diffSubject(ctx context.Context, c *Client, se *subjectEntry, registered bool, global string) ([]Drift, error) {
	name := se.name
	var out []Drift
	if se.deleted {
		if registered {
			out = append(out, Drift{Kind: DeletedSubject, Subject: name,
				Message: fmt.Sprintf("%s was deleted from the contract tree but is still registered; delete it from the registry once no producer writes it.", name)})
		}
		return out, nil
	}
	// The registry's versions of this subject, by canonical form; those that no Git
	// version explains (its form and data contract) are reported unregistered.
	byForm := map[string][]*Schema{}
	var regs []*Schema
	if registered {
		nums, err := c.Versions(ctx, name)
		if err != nil && !IsSubjectNotFound(err) {
			return nil, err
		}
		for _, n := range nums {
			sc, err := c.GetVersion(ctx, name, n)
			if err != nil {
				return nil, err
			}
			k, _ := canonical(sc.Type(), []byte(sc.Schema))
			byForm[k] = append(byForm[k], &sc)
			regs = append(regs, &sc)
		}
	}
	explained := map[int]bool{} // registry versions matched by a Git version
	var missing []Drift
	for _, ve := range se.versions {
		cands := byForm[ve.norm]
		if len(cands) == 0 && registered {
			// The texts differ: the registry may store the schema in another form
			// that means the same (its own normalization); it says so to a look-up.
			found, err := c.LookUpNormalized(ctx, name, ve.schema(), ve.typ, ve.refs)
			switch {
			case err == nil:
				cands = []*Schema{&found}
			case !IsNotFound(err) && !IsInvalidSchema(err):
				return nil, err
			}
		}
		if len(cands) == 0 {
			missing = append(missing, Drift{Kind: Missing, Subject: name, Version: ve.v.Version, ID: ve.v.ID,
				Message: fmt.Sprintf("%s version %d (commit %.12s) is not registered; run contractbot publish to register it.", name, ve.v.Version, ve.v.Commit)})
			continue
		}
		var diffs []string
		for _, sc := range cands {
			meta, rules := ve.contract()
			d := contractDifferences(meta, sc.Metadata, rules, sc.RuleSet)
			if len(d) == 0 {
				diffs = nil
				explained[sc.Version] = true
				break
			}
			if diffs == nil {
				diffs = d // against the registry's first version of the form
			}
		}
		if diffs != nil {
			sc := cands[0]
			explained[sc.Version] = true
			missing = append(missing, Drift{Kind: DataContractDiffers, Subject: name, Version: ve.v.Version, ID: ve.v.ID, Differences: diffs,
				Message: fmt.Sprintf("%s version %d (commit %.12s) is registered as version %d (id %d) with another data contract: %s. Run contractbot publish to register it with contract.yaml's, or change %s/contract.yaml through a pull request.",
					name, ve.v.Version, ve.v.Commit, sc.Version, sc.ID, strings.Join(diffs, "; "), folderOr(se))})
		}
	}
	for _, sc := range regs {
		if !explained[sc.Version] {
			out = append(out, Drift{Kind: Unregistered, Subject: name, Version: sc.Version, ID: sc.ID,
				Message: fmt.Sprintf("%s version %d (id %d) is in the registry but not in Git: it was registered outside the contract repository. Bring it into %s through a pull request, or delete it from the registry.", name, sc.Version, sc.ID, folderOr(se))})
		}
	}
	out = append(out, missing...)
	lvl, err := c.GetConfig(ctx, name)
	if IsNotFound(err) {
		lvl, err = global, nil
	}
	if err != nil {
		return nil, err
	}
	if lvl != se.level {
		out = append(out, Drift{Kind: LevelDiffers, Subject: name, Git: se.level, Registry: lvl,
			Message: fmt.Sprintf("%s is %s in the registry but %s in %s/contract.yaml; run contractbot publish to set it, or change the file through a pull request.", name, lvl, se.level, folderOr(se))})
	}
	return out, nil
}

func folderOr(se *subjectEntry) string {
	if se.folder != "" {
		return se.folder
	}
	return "the contract repository"
}
