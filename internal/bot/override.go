package bot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/contractbot/contractbot/internal/verdict"
)

// changeKey is the key of Override.Waived that fingerprints the change itself (its
// subjects, findings, field changes, lint errors and calendar needs); the others are
// teams' sign-off fingerprints.
const changeKey = "*change*"

// override decides whether an admin override is in force. It exists only where an
// admin's `/contractbot override <reason>` comment exists: one just given (checked by
// the command), or the one the verified state names, read again from the pull
// request's comments and checked again against the admin team. It is bound to what
// it waived: when a later push changes a fingerprint it waived, it lapses and the
// comment says so.
func (b *Bot) override(ctx context.Context, ev *evaluation, opt evalOptions) *verdict.Override {
	waived := waivedBy(ev.report)
	notice := func(format string, args ...any) { ev.in.Notices = append(ev.in.Notices, fmt.Sprintf(format, args...)) }
	if o := opt.override; o != nil {
		if why := overrideUnseen(ev, o); why != "" {
			notice("The override by @%s (%s) is not applied: %s. Read the verdict below; if the change may still merge, override again: /contractbot override <reason>.", o.By, o.Reason, why)
			ev.log.Warn("override not applied", "by", o.By, "why", why)
			return nil
		}
		bound := *o
		bound.Head, bound.Waived = ev.pr.HeadSHA, waived
		return &bound
	}
	if ev.mem.Rebuilt {
		for _, c := range ev.comments {
			if cmd, ok := ParseCommand(c.Body); ok && cmd.Name == "override" && !strings.EqualFold(c.Login, b.Self) {
				notice("A /contractbot override comment by @%s exists, but contractbot cannot tell what it waived (its memory of this pull request could not be verified), so it is not applied. An admin can override again: /contractbot override <reason>.", c.Login)
				break
			}
		}
		return nil
	}
	if ev.mem.State == nil || ev.mem.State.Override == nil {
		return nil
	}
	o := ev.mem.State.Override
	if why := b.overrideGone(ctx, ev, o); why != "" {
		notice("The override by @%s is no longer in force: %s. An admin can override again: /contractbot override <reason>.", o.By, why)
		ev.log.Warn("override no longer in force", "by", o.By, "why", why)
		return nil
	}
	if !maps.Equal(o.Waived, waived) {
		notice("The override by @%s (%s) was given for commit %s; commit %s changes what it waived (%s), so it no longer applies. An admin can override again: /contractbot override <reason>.",
			o.By, o.Reason, shortSHA(o.Head), shortSHA(ev.pr.HeadSHA), describeChanged(o.Waived, waived))
		ev.log.Info("override lapsed", "by", o.By, "given_on", o.Head)
		return nil
	}
	return o
}

// overrideUnseen says why a fresh override cannot be bound to the head being
// evaluated, or "". An admin waives what contractbot's comment showed when they wrote
// the command, so the override applies only when that comment showed this head: the
// bot's verified memory names this head, and the command was written after the bot
// first showed its verdict on it (its created_at, GitHub's clock, against HeadSince,
// the bot's; a few seconds of skew can only refuse an override, never widen one).
func overrideUnseen(ev *evaluation, o *verdict.Override) string {
	st := ev.mem.State
	if st == nil || ev.mem.Rebuilt {
		return fmt.Sprintf("when it was given, contractbot had not shown a verdict on commit %s that it can vouch for", shortSHA(ev.pr.HeadSHA))
	}
	if st.HeadSHA != ev.pr.HeadSHA {
		return fmt.Sprintf("it was given while contractbot's comment showed commit %s, and commit %s has been pushed since", shortSHA(st.HeadSHA), shortSHA(ev.pr.HeadSHA))
	}
	i := slices.IndexFunc(ev.comments, func(c Comment) bool { return c.ID == o.CommentID })
	if i < 0 {
		return "its /contractbot override comment was deleted"
	}
	if created := ev.comments[i].CreatedAt; !st.HeadSince.IsZero() && created.Before(st.HeadSince) {
		return fmt.Sprintf("it was written at %s, before contractbot showed its verdict on commit %s (%s)",
			created.UTC().Format(time.RFC3339), shortSHA(ev.pr.HeadSHA), st.HeadSince.UTC().Format(time.RFC3339))
	}
	return ""
}

// overrideGone says why an override's comment no longer stands, or "".
func (b *Bot) overrideGone(ctx context.Context, ev *evaluation, o *verdict.Override) string {
	i := slices.IndexFunc(ev.comments, func(c Comment) bool { return c.ID == o.CommentID })
	if i < 0 {
		return "its /contractbot override comment was deleted"
	}
	c := ev.comments[i]
	cmd, ok := ParseCommand(c.Body)
	if !strings.EqualFold(c.Login, o.By) || !ok || cmd.Name != "override" || cmd.Arg != o.Reason {
		return "its /contractbot override comment was changed"
	}
	admin, err := b.isAdmin(ctx, ev.gh, o.By)
	if err != nil {
		ev.log.Warn("could not read the admin team; the override is not applied", "err", err)
		return fmt.Sprintf("the admin team %s could not be read to check @%s", b.AdminTeam, o.By)
	}
	if !admin {
		return fmt.Sprintf("@%s is no longer a member of %s", o.By, orDash(b.AdminTeam))
	}
	return ""
}

// waivedBy fingerprints what an override lets through: each required team's sign-off
// fingerprint, and the change itself (subjects, findings, field changes, governance,
// policy findings, state effects, data rules and data-contract changes, lint errors,
// calendar needs and freezes).
func waivedBy(r *verdict.Report) map[string]string {
	out := map[string]string{}
	for _, so := range r.SignOffs {
		out[so.Team] = so.Fingerprint
	}
	h := sha256.New()
	for _, s := range r.Subjects {
		fmt.Fprintf(h, "subject %s %s %s %s\n", s.Subject, s.Kind, s.Class, s.Error)
		for _, f := range s.Findings {
			fmt.Fprintf(h, "finding %s %s\n", f.Rule, f.Path)
		}
		for _, c := range s.Changes {
			fmt.Fprintf(h, "change %s %s %s %s\n", c.Kind, c.Path, c.Old, c.New)
		}
		for _, g := range s.Governance {
			fmt.Fprintf(h, "governance %s\n", g)
		}
		// What the change does beyond the schema, as facts (rule names, fields,
		// kinds), never the sentences: a new policy finding, state effect, broken
		// data rule or data-contract change is something the override never saw.
		for _, p := range s.Policy {
			fmt.Fprintf(h, "policy %s %s %s %s\n", p.Rule, p.Path, p.Policy, p.Class)
		}
		for _, e := range s.State {
			fmt.Fprintf(h, "state %s %s %s %t\n", e.Consumer, e.Field, e.Change, e.Migratable)
		}
		for _, d := range s.DataRules {
			fmt.Fprintf(h, "data-rule %s %s %s\n", d.Rule, d.Field, d.Change)
		}
		for _, c := range s.DataContract {
			fmt.Fprintf(h, "data-contract %s %s %s %s %s %s %s\n", c.What, c.Rule, c.Kind, c.Mode, c.OnFailure, c.Field, c.Tag)
			if c.Digest != "" { // the rule's expression, params, tags and actions
				fmt.Fprintf(h, "data-contract-rule %s %s\n", c.Rule, c.Digest)
			}
		}
	}
	for _, d := range r.Lint {
		fmt.Fprintf(h, "lint %s %s\n", d.File, d.Code)
	}
	for _, c := range r.Calendar {
		fmt.Fprintf(h, "calendar %s %t %s\n", c.Subject, c.Required, c.Entry)
		if c.Freeze != "" {
			fmt.Fprintf(h, "freeze %s %s\n", c.Subject, c.Freeze)
		}
	}
	out[changeKey] = hex.EncodeToString(h.Sum(nil))[:16]
	return out
}

// describeChanged says in words what differs between two Waived maps.
func describeChanged(was, now map[string]string) string {
	var parts []string
	if was[changeKey] != now[changeKey] {
		parts = append(parts, "the schema changes themselves")
	}
	for _, team := range slices.Sorted(maps.Keys(now)) {
		if team == changeKey {
			continue
		}
		switch old, ok := was[team]; {
		case !ok:
			parts = append(parts, "team "+team+" must now sign off")
		case old != now[team]:
			parts = append(parts, "what it does to team "+team+"'s consumers")
		}
	}
	if len(parts) == 0 {
		return "the sign-offs it needs"
	}
	return strings.Join(parts, "; ")
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
