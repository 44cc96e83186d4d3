package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/calendar"
	"github.com/contractbot/contractbot/internal/contract"
)

func newCalendarCmd() *cobra.Command {
	var rf repoFlags
	var from, to, team, format, tz, now string
	cmd := &cobra.Command{
		Use:   "calendar",
		Short: "Show planned changes and freezes as an agenda, JSON or an iCalendar feed",
		Long: `calendar reads calendar/ (planned changes and freezes.yaml) and prints what happens in
a range of days: each entry with its subjects, owner and pull request, each freeze
occurrence with its scope, and conflicts (entries that overlap in time and change the
same subject or affect the same consumers). Days are calendar days in --tz.

--from and --to are dates (yyyy-mm-dd) in --tz; --to is inclusive. The default range is
today and the 30 days after it. --tz defaults to the team's time zone with --team, UTC
otherwise. --format ics writes an RFC 5545 calendar to import or subscribe to.`,
		Example: `  contractbot calendar
  contractbot calendar --team data-warehouse   # one team's entries, in its zone
  contractbot calendar --from 2026-12-01 --to 2027-01-31 --tz Europe/Berlin
  contractbot calendar --format ics > contractbot.ics
  contractbot calendar --format json --rev origin/main`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			clock, err := nowFlag(now, time.Now())
			if err != nil {
				return err
			}
			src, err := rf.source()
			if err != nil {
				return err
			}
			tree, err := contract.Load(src)
			if err != nil {
				return err
			}
			if n := tree.Diagnostics.Errors(); n > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "contractbot: warning: the tree has %d error(s) and files with errors are left out; run contractbot lint.\n", n)
			}
			if team != "" && tree.Teams[team] == nil {
				return fmt.Errorf("--team %q is not a team of contracts/teams.yaml; teams: %s", team, strings.Join(tree.TeamIDs(), ", "))
			}
			zone := tz
			if zone == "" {
				zone = "UTC"
				if t := tree.Teams[team]; t != nil && t.Timezone != "" {
					zone = t.Timezone
				}
			}
			loc, err := time.LoadLocation(zone)
			if err != nil || zone == "Local" {
				return fmt.Errorf("--tz %q is not an IANA time zone name; write one like Europe/Berlin or UTC", zone)
			}
			y, m, d := clock.In(loc).Date()
			start := time.Date(y, m, d, 0, 0, 0, 0, loc)
			end := start.AddDate(0, 0, 31)
			if from != "" {
				if start, err = time.ParseInLocation("2006-01-02", from, loc); err != nil {
					return fmt.Errorf("--from %q is not a date; write it as 2026-12-01", from)
				}
				end = start.AddDate(0, 0, 31)
			}
			if to != "" {
				last, err := time.ParseInLocation("2006-01-02", to, loc)
				if err != nil {
					return fmt.Errorf("--to %q is not a date; write it as 2026-12-31", to)
				}
				end = last.AddDate(0, 0, 1)
			}
			if !end.After(start) {
				return fmt.Errorf("--to (%s) is before --from (%s); give a later --to", end.AddDate(0, 0, -1).Format("2006-01-02"), start.Format("2006-01-02"))
			}
			view := calendar.Agenda(tree, start, end, team, calendar.WithNow(clock))
			w := cmd.OutOrStdout()
			switch format {
			case "text":
				return calendar.WriteText(w, view)
			case "json":
				return calendar.WriteJSON(w, view)
			case "ics":
				return calendar.WriteICS(w, view, calendar.ICSOptions{Now: clock})
			}
			return fmt.Errorf("unknown --format %q: use text, json or ics", format)
		},
	}
	rf.add(cmd)
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "first day of the range, yyyy-mm-dd in --tz (default: today)")
	f.StringVar(&to, "to", "", "last day of the range, inclusive (default: 30 days after --from)")
	f.StringVar(&team, "team", "", "only what concerns this team: its entries, its subjects and the subjects it consumes")
	f.StringVarP(&format, "format", "o", "text", "output format: text, json or ics")
	f.StringVar(&tz, "tz", "", "display time zone, an IANA name (default: the team's zone with --team, else UTC)")
	f.StringVar(&now, "now", "", "show the calendar as of this time (RFC 3339, e.g. 2026-12-01T09:00:00Z) instead of the clock: what is ongoing, ended or ahead, and the default --from")
	return cmd
}
