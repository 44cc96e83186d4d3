package githubapi

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/google/go-github/v60/github"

	"github.com/contractbot/contractbot/internal/outbound"
)

// CallTimeout bounds one request to GitHub's REST API (headers and body): a stalled
// request fails like a network error after it and is retried as one (Client.call).
const CallTimeout = 30 * time.Second

// HTTPClient is the http.Client of a token's requests to GitHub: each request is
// bounded by CallTimeout, and one cut off by it is logged on log with what it was.
func HTTPClient(log *slog.Logger) *http.Client {
	return outbound.Client("github", CallTimeout, log)
}

// Clients gives the GitHub API and the Git credentials to use for a repository. With
// a token there is one of each; as a GitHub App, one per installation.
type Clients interface {
	For(ctx context.Context, owner, repo string, installation int64) (*Client, transport.AuthMethod, error)
}

// TokenClients uses one token for everything.
type TokenClients struct {
	API   *Client
	Token string
}

// For returns the token's client.
func (c *TokenClients) For(context.Context, string, string, int64) (*Client, transport.AuthMethod, error) {
	var auth transport.AuthMethod
	if c.Token != "" {
		auth = &githttp.BasicAuth{Username: "x-access-token", Password: c.Token}
	}
	return c.API, auth, nil
}

// Identity returns the login the token acts as (GET /user): the bot trusts only
// comments written by it.
func (c *TokenClients) Identity(ctx context.Context) (string, error) {
	login, err := c.API.AuthenticatedUser(ctx)
	if err != nil {
		return "", fmt.Errorf("learn the token's login (GET /user): %w", err)
	}
	return login, nil
}

// AppClients authenticates as a GitHub App: a JWT signed with the App's private key
// mints an installation token per installation (ghinstallation renews it before it
// expires). The installation comes from the webhook; the reconcile loop looks it up
// per repository.
type AppClients struct {
	AppID int64
	// PrivateKey is the App's PEM private key.
	PrivateKey []byte
	// BaseURL is the REST API's base URL: https://api.github.com/ (default) or a
	// GitHub Enterprise https://host/api/v3/.
	BaseURL string
	// Base is the HTTP transport under the App's (default http.DefaultTransport).
	Base http.RoundTripper
	// Timeout bounds each request to GitHub, the installation tokens' included
	// (CallTimeout when 0); Log is told of a request cut off by it.
	Timeout time.Duration
	Log     *slog.Logger

	once  sync.Once
	apps  *ghinstallation.AppsTransport
	err   error
	mu    sync.Mutex
	byID  map[int64]*installation
	byRep map[string]int64
}

type installation struct {
	api *Client
	tr  *ghinstallation.Transport
}

func (c *AppClients) init() {
	base := &outbound.Transport{Service: "github", Timeout: cmp.Or(c.Timeout, CallTimeout), Base: c.Base, Log: c.Log}
	c.apps, c.err = ghinstallation.NewAppsTransport(base, c.AppID, c.PrivateKey)
	if c.err != nil {
		c.err = fmt.Errorf("GitHub App %d private key: %w", c.AppID, c.err)
		return
	}
	c.apps.BaseURL = strings.TrimSuffix(c.baseURL(), "/")
	c.byID, c.byRep = map[int64]*installation{}, map[string]int64{}
}

func (c *AppClients) baseURL() string {
	if c.BaseURL == "" {
		return "https://api.github.com/"
	}
	return strings.TrimSuffix(c.BaseURL, "/") + "/"
}

func (c *AppClients) client(rt http.RoundTripper) (*github.Client, error) {
	gh := github.NewClient(&http.Client{Transport: rt})
	if c.BaseURL == "" {
		return gh, nil
	}
	return gh.WithEnterpriseURLs(c.baseURL(), c.baseURL())
}

// For returns the installation's client and a Git credential with its token.
func (c *AppClients) For(ctx context.Context, owner, repo string, id int64) (*Client, transport.AuthMethod, error) {
	c.once.Do(c.init)
	if c.err != nil {
		return nil, nil, c.err
	}
	if id == 0 {
		var err error
		if id, err = c.lookup(ctx, owner, repo); err != nil {
			return nil, nil, err
		}
	}
	c.mu.Lock()
	inst := c.byID[id]
	if inst == nil {
		tr := ghinstallation.NewFromAppsTransport(c.apps, id)
		tr.BaseURL = c.apps.BaseURL
		gh, err := c.client(tr)
		if err != nil {
			c.mu.Unlock()
			return nil, nil, err
		}
		inst = &installation{api: New(gh), tr: tr}
		c.byID[id] = inst
	}
	c.mu.Unlock()
	token, err := inst.tr.Token(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("installation token for %s/%s: %w", owner, repo, err)
	}
	return inst.api, &githttp.BasicAuth{Username: "x-access-token", Password: token}, nil
}

// lookup finds the App's installation on a repository.
func (c *AppClients) lookup(ctx context.Context, owner, repo string) (int64, error) {
	key := owner + "/" + repo
	c.mu.Lock()
	id, ok := c.byRep[key]
	c.mu.Unlock()
	if ok {
		return id, nil
	}
	gh, err := c.client(c.apps)
	if err != nil {
		return 0, err
	}
	inst, _, err := gh.Apps.FindRepositoryInstallation(ctx, owner, repo)
	if err != nil {
		return 0, fmt.Errorf("the App is not installed on %s: %w", key, err)
	}
	c.mu.Lock()
	c.byRep[key] = inst.GetID()
	c.mu.Unlock()
	return inst.GetID(), nil
}

// Identity returns the login the App's installations act as, "<slug>[bot]", read
// from GET /app with the App's JWT: the bot trusts only comments written by it.
func (c *AppClients) Identity(ctx context.Context) (string, error) {
	c.once.Do(c.init)
	if c.err != nil {
		return "", c.err
	}
	gh, err := c.client(c.apps)
	if err != nil {
		return "", err
	}
	app, _, err := gh.Apps.Get(ctx, "")
	if err != nil {
		return "", fmt.Errorf("learn the App's bot login (GET /app): %w", err)
	}
	if app.GetSlug() == "" {
		return "", fmt.Errorf("learn the App's bot login: GET /app answered no slug")
	}
	return app.GetSlug() + "[bot]", nil
}
