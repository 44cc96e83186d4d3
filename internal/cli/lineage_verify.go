package cli

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/lineage"
	"github.com/contractbot/contractbot/internal/lineage/olstore"
	"github.com/contractbot/contractbot/internal/lineage/openlineage"
	"github.com/contractbot/contractbot/internal/outbound"
)

func newLineageVerifyCmd() *cobra.Command {
	var repo, events, url string
	cmd := &cobra.Command{
		Use:   "verify --openlineage FILE.jsonl | --url SERVE",
		Short: "Compare the lineage jobs were observed doing (OpenLineage events) with the consumer files",
		Long: `verify reads OpenLineage run events (one JSON object a line, as OpenLineage's file
transport writes them), keeps the Kafka datasets (namespace kafka://...) and the
columnLineage facet, and lists the drift against the consumer files: a job reading a
topic without a consumer file, fields read but not declared, declared fields and
subjects never observed, output fields made from inputs the file does not map. Exit
status 1 when there is drift, 3 when nothing could be compared (no event names a
Kafka topic that a contract declares; the datasets seen are listed). See
docs/lineage.md.`,
		Example: `  contractbot lineage verify --openlineage events.jsonl
  contractbot lineage verify --url http://localhost:8080   # what serve received`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var evs []openlineage.RunEvent
			var err error
			switch {
			case events != "" && url == "", events == "" && url != "":
				evs, err = readEvents(events, url)
			default:
				return fmt.Errorf("give the events with --openlineage FILE.jsonl or --url http://SERVE (one of them)")
			}
			if err != nil {
				return err
			}
			tree, err := contract.Load(contract.NewDirSource(repo))
			if err != nil {
				return fmt.Errorf("load the contract repository %s: %w", repo, err)
			}
			observed := openlineage.Observe(evs)
			fig := lineage.Compute(tree, observed, lineage.Own)
			drift, notes, unmapped := fig.Drift, fig.Notes, fig.Unmapped
			out := cmd.OutOrStdout()
			if fig.Compared == 0 {
				return comparedNothing(out, len(evs), len(observed), unmapped)
			}
			for _, n := range notes {
				fmt.Fprintln(out, "note:", n)
			}
			if len(unmapped) > 0 {
				fmt.Fprintf(out, "note: not compared, as no contract declares them: %s.\n", strings.Join(unmapped[:min(len(unmapped), maxUnmapped)], "; "))
			}
			for _, d := range drift {
				fmt.Fprintln(out, d.Text)
			}
			if len(drift) > 0 {
				fmt.Fprintf(out, "%d differences between what %d %s did and what their consumer files declare.\n", len(drift), len(observed), plural(len(observed), "job", "jobs"))
				return &ExitError{Code: 1}
			}
			fmt.Fprintf(out, "What %d %s did matches their consumer files (%d events).\n", len(observed), plural(len(observed), "job", "jobs"), len(evs))
			return nil
		},
	}
	cmd.Flags().StringVar(&repo, "repo", ".", "the contract repository (a directory)")
	cmd.Flags().StringVar(&events, "openlineage", "", "a JSON-lines file of OpenLineage run events")
	cmd.Flags().StringVar(&url, "url", "", "a contractbot serve that receives OpenLineage events (reads GET /api/v1/lineage)")
	return cmd
}

// maxUnmapped bounds the datasets listed when nothing was compared.
const maxUnmapped = 50

// comparedNothing says that no event named a topic of a contract, lists the datasets
// the events did name, and exits 3: a job whose events never reach the comparison
// must not pass as matching its consumer files.
func comparedNothing(out io.Writer, events, jobs int, unmapped []string) error {
	fmt.Fprintf(out, "Compared nothing: none of the %d %s (%d %s) names a Kafka topic that a contract declares.\n",
		events, plural(events, "event", "events"), jobs, plural(jobs, "job", "jobs"))
	if len(unmapped) > 0 {
		fmt.Fprintln(out, "Datasets the events name, which map to no contract:")
		for i, d := range unmapped {
			if i == maxUnmapped {
				fmt.Fprintf(out, "  ... and %d more\n", len(unmapped)-maxUnmapped)
				break
			}
			fmt.Fprintf(out, "  %s\n", d)
		}
	}
	fmt.Fprintln(out, "A Kafka dataset is namespace kafka://host:port with the topic as its name; give the contract of each topic its topic: key.")
	return &ExitError{Code: 3}
}

// readEvents reads the events from a file or from a serve's /api/v1/lineage.
func readEvents(file, url string) ([]openlineage.RunEvent, error) {
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("read OpenLineage events: %w", err)
		}
		defer func() { _ = f.Close() }() // read only
		return openlineage.ReadLines(file, f)
	}
	full := strings.TrimSuffix(url, "/") + olstore.Path
	u := outbound.RedactString(full)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Get(full)
	if err != nil {
		return nil, fmt.Errorf("read OpenLineage events from %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("read OpenLineage events from %s: %s", u, resp.Status)
	}
	return openlineage.ReadLines(u, resp.Body)
}
