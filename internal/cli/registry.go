package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/outbound"
	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/versions"
)

func newRegistryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "registry",
		Short: "Serve the contract repository as a read-only schema registry, or compare it with a live one",
		Long: `registry serve answers the read side of the Confluent Schema Registry REST API from
the versions of the default branch; registry diff compares those versions with a live
registry. See docs/registry.md.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newRegistryServeCmd(), newRegistryDiffCmd())
	return cmd
}

// branchFlags name the repository and the branch whose history is the registry.
type branchFlags struct {
	repo, branch string
}

func (b *branchFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&b.repo, "repo", ".", "the contract repository (a Git working tree or bare repository)")
	cmd.Flags().StringVar(&b.branch, "branch", "", "the branch whose first-parent history holds the versions (default: origin/HEAD, origin/main, origin/master, main or master, the first that exists)")
}

// open opens the repository and names the branch to follow.
func (b *branchFlags) open() (*gitrepo.Repo, string, error) {
	r, err := gitrepo.Open(b.repo)
	if err != nil {
		return nil, "", err
	}
	name, err := branchOf(r, b.repo, b.branch)
	if err != nil {
		r.Close()
		return nil, "", err
	}
	return r, name, nil
}

// branchOf names the branch a command serves or publishes: the --branch given, else
// the first of origin/HEAD, origin/main, origin/master, main and master that exists
// (never whatever is checked out).
func branchOf(r *gitrepo.Repo, repoDir, branch string) (string, error) {
	if branch != "" {
		return branch, nil
	}
	name, err := gitrepo.DefaultBranch(r.Repository)
	if err != nil {
		return "", fmt.Errorf("%s: %w; name one with --branch", repoDir, err)
	}
	return name, nil
}

func newRegistryServeCmd() *cobra.Command {
	var bf branchFlags
	var addr string
	var poll time.Duration
	var cacheDir string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the default branch's schema versions over the Confluent Schema Registry API, read-only",
		Long: `serve indexes the branch's first-parent history (a subject's version N is the N-th
distinct content of its schema file; ids are assigned in order of first appearance) and
answers registry clients: GET /subjects, /subjects/{s}/versions[/{v|latest}[/schema]],
/schemas/ids/{id}[/schema|/versions|/subjects], /schemas/types, /config[/{s}], /mode;
POST /subjects/{s} (look-up) and POST /compatibility/subjects/{s}/versions[/{v}]
(contractbot's checkers at the subject's level). Writes are refused with error code
42205: schemas change through pull requests. The branch is polled every --poll; a new
commit is served as soon as it is indexed. Stop with Ctrl-C.`,
		Example: `  contractbot registry serve
  contractbot registry serve --repo /srv/contracts --branch origin/main \
      --addr 0.0.0.0:8081
  curl -s localhost:8081/subjects/orders.order-created-value/versions/latest`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, branch, err := bf.open()
			if err != nil {
				return err
			}
			defer r.Close()
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			src := registry.Source{Repo: r.Repository, Branch: branch, Logger: log}
			if cacheDir != "" {
				src.Cache = &versions.Cache{Dir: filepath.Join(cacheDir, "versions"), Repo: bf.repo, Branch: branch, Log: log}
			}
			srv, err := registry.NewServer(src)
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen on %s: %w", addr, err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			hs := server.NewHTTPServer(srv)
			go srv.Follow(ctx, poll)
			go func() {
				<-ctx.Done()
				sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = hs.Shutdown(sctx)
			}()
			fmt.Fprintf(cmd.OutOrStdout(), "serving %s at %.12s, read-only, on http://%s\n", branch, srv.Head(), ln.Addr())
			if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	bf.add(cmd)
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8081", "the address to listen on")
	cmd.Flags().DurationVar(&poll, "poll", time.Second, "how often to look for new commits on the branch")
	cmd.Flags().StringVar(&cacheDir, "cache-dir", "", "keep the versions index in this folder (versions/, as serve does) and restore it at the next start, indexing only the commits made since (default: index the whole history at every start)")
	return cmd
}

func newRegistryDiffCmd() *cobra.Command {
	var bf branchFlags
	var url string
	var asJSON bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "diff --url URL",
		Short: "Compare the default branch's schema versions with a live registry; exit 1 on drift",
		Long: `diff lists what differs between Git (the source of truth) and a live registry: versions
in Git that are not registered, versions registered behind Git's back, subjects the
registry has and Git never had, and compatibility levels that differ. Versions are
matched by canonical form (layout, comments and the order of the keys a format reads do
not count, as in a Confluent registry), not by number or id. Exit status 1 when anything
differs.

Credentials come from the environment: CONTRACTBOT_REGISTRY_USER and
CONTRACTBOT_REGISTRY_PASSWORD (basic auth) or CONTRACTBOT_REGISTRY_TOKEN (bearer).`,
		Example: `  contractbot registry diff --url https://registry.example.com
  contractbot registry diff --url http://127.0.0.1:8081 --branch origin/main \
      -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if url == "" {
				return errors.New("name the registry with --url, e.g. --url https://registry.example.com")
			}
			r, branch, err := bf.open()
			if err != nil {
				return err
			}
			defer r.Close()
			head, err := gitrepo.ResolveBranch(r.Repository, branch)
			if err != nil {
				return err
			}
			ix, err := versions.Build(r.Repository, head)
			if err != nil {
				return err
			}
			c, err := registry.NewClient(url, clientOptions(timeout)...)
			if err != nil {
				return err
			}
			rep, err := registry.Diff(cmd.Context(), c, r.Repository, ix)
			if err != nil {
				return fmt.Errorf("compare with %s: %w", outbound.RedactString(url), err)
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				writeDrift(cmd.OutOrStdout(), branch, rep)
			}
			if len(rep.Drift) > 0 {
				return &ExitError{Code: 1}
			}
			return nil
		},
	}
	bf.add(cmd)
	cmd.Flags().StringVar(&url, "url", "", "the registry's base URL")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "time limit of each request to the registry")
	return cmd
}

// clientOptions reads credentials from the environment.
func clientOptions(timeout time.Duration) []registry.Option {
	opts := []registry.Option{registry.WithTimeout(timeout)}
	if tok := os.Getenv("CONTRACTBOT_REGISTRY_TOKEN"); tok != "" {
		opts = append(opts, registry.WithBearerToken(tok))
	} else if u := os.Getenv("CONTRACTBOT_REGISTRY_USER"); u != "" {
		opts = append(opts, registry.WithBasicAuth(u, os.Getenv("CONTRACTBOT_REGISTRY_PASSWORD")))
	}
	return opts
}

func writeDrift(w io.Writer, branch string, rep *registry.DriftReport) {
	for _, d := range rep.Drift {
		fmt.Fprintf(w, "%-16s %s\n", d.Kind, d.Message)
	}
	if len(rep.Drift) == 0 {
		fmt.Fprintf(w, "no drift: the registry holds every version and level of %d subject(s) of %s at %.12s, and nothing else\n", rep.Subjects, branch, rep.Head)
		return
	}
	fmt.Fprintf(w, "%d difference(s) between the registry and %d subject(s) of %s at %.12s\n", len(rep.Drift), rep.Subjects, branch, rep.Head)
}
