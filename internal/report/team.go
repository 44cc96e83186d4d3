package report

import (
	"slices"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/history"
)

// TeamPart is one team's share of the report, for its lead's monthly digest.
type TeamPart struct {
	Team string `json:"team"`
	// Unused are the team's subjects no consumer reads.
	Unused []Unused `json:"unused"`
	// DeprecatedReads are its consumers' reads of deprecated fields (theirs to move
	// off); DeprecatedOwned are other teams' reads of the fields it deprecated
	// (what holds up their removal).
	DeprecatedReads []DeprecatedRead `json:"deprecated_reads"`
	DeprecatedOwned []DeprecatedRead `json:"deprecated_owned"`
	// BlackBoxes are its jobs that declare no lineage.
	BlackBoxes []Consumer `json:"black_boxes"`
	// Broken are the versions of its subjects that broke their level.
	Broken []history.Break `json:"history_broke_level"`
	// Departing are its subjects' topics whose sampled data departs from the contract.
	Departing []Departing `json:"departing_topics,omitempty"`
}

// Empty reports whether the part has nothing to say.
func (p TeamPart) Empty() bool {
	return len(p.Unused)+len(p.DeprecatedReads)+len(p.DeprecatedOwned)+len(p.BlackBoxes)+len(p.Broken)+len(p.Departing) == 0
}

// ForTeams splits the report by team (the owners in tree's teams.yaml), in team id
// order; a team the report says nothing about has an empty part.
func ForTeams(r *Health, tree *contract.Tree) []TeamPart {
	owner := map[string]string{}
	for _, s := range tree.Subjects {
		owner[s.Subject] = s.Owner
	}
	parts := map[string]*TeamPart{}
	var ids []string
	for id := range tree.Teams {
		parts[id] = &TeamPart{Team: id}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	part := func(team string) *TeamPart {
		if p := parts[team]; p != nil {
			return p
		}
		return &TeamPart{} // an owner teams.yaml lacks (lint reports it): nobody to tell
	}
	for _, u := range r.Unused {
		p := part(u.Owner)
		p.Unused = append(p.Unused, u)
	}
	for _, d := range r.DeprecatedReads {
		p := part(d.Owner)
		p.DeprecatedReads = append(p.DeprecatedReads, d)
		if o := owner[d.Subject]; o != d.Owner {
			q := part(o)
			q.DeprecatedOwned = append(q.DeprecatedOwned, d)
		}
	}
	for _, c := range r.Lineage.BlackBoxes {
		p := part(c.Owner)
		p.BlackBoxes = append(p.BlackBoxes, c)
	}
	for _, b := range r.Broken {
		p := part(owner[b.Subject])
		p.Broken = append(p.Broken, b)
	}
	if r.Sampled != nil {
		for _, d := range r.Sampled.Departing {
			p := part(owner[d.Subject])
			p.Departing = append(p.Departing, d)
		}
	}
	out := make([]TeamPart, 0, len(ids))
	for _, id := range ids {
		out = append(out, *parts[id])
	}
	return out
}
