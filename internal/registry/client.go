package registry

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client talks to a Confluent-compatible Schema Registry (Confluent, Apicurio's
// compatibility API, Karapace, Redpanda, or the embedded registry of this package).
// It is safe for concurrent use.
type Client struct {
	base    *url.URL
	hc      *http.Client
	auth    func(*http.Request)
	timeout time.Duration
	retries int
	backoff time.Duration
	maxWait time.Duration
}

// Option configures a Client.
type Option func(*Client)

// WithBasicAuth sends HTTP basic credentials with every request.
func WithBasicAuth(user, password string) Option {
	return func(c *Client) { c.auth = func(r *http.Request) { r.SetBasicAuth(user, password) } }
}

// WithBearerToken sends "Authorization: Bearer <token>" with every request.
func WithBearerToken(token string) Option {
	return func(c *Client) {
		c.auth = func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
	}
}

// WithHTTPClient uses hc for every request (its Timeout still applies).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithTLSConfig uses a transport with the given TLS configuration (client
// certificates, a private CA).
func WithTLSConfig(cfg *tls.Config) Option {
	return func(c *Client) {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.TLSClientConfig = cfg
		c.hc = &http.Client{Transport: t}
	}
}

// WithTimeout bounds each attempt of a request (default 10 s). The caller's context
// bounds the whole call, retries included.
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithRetry retries a request up to max more times after a 5xx answer or a timeout,
// waiting base, 2*base, 4*base, ... (capped at 30 s) with full jitter. 4xx answers are
// never retried. The default is 3 retries from 100 ms; WithRetry(0, 0) disables them.
func WithRetry(max int, base time.Duration) Option {
	return func(c *Client) { c.retries, c.backoff = max, base }
}

// NewClient returns a client for the registry at baseURL (e.g.
// https://registry.example.com:8081 or http://127.0.0.1:8081/prefix).
func NewClient(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("registry URL %q: %w", baseURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("registry URL %q: use an http:// or https:// URL", u.Redacted())
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	c := &Client{base: u, hc: http.DefaultClient, timeout: 10 * time.Second, retries: 3, backoff: 100 * time.Millisecond, maxWait: 30 * time.Second}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Register registers schema under subject (or finds it already registered there) and
// returns its global id. Registering is idempotent in the registry, so it is retried
// like a read.
func (c *Client) Register(ctx context.Context, subject, schema string, typ SchemaType, refs []Reference) (int, error) {
	var out struct {
		ID int `json:"id"`
	}
	err := c.do(ctx, http.MethodPost, "subjects/"+esc(subject)+"/versions", schemaRequest{Schema: schema, SchemaType: typeForRequest(typ), References: refs}, &out)
	if err != nil {
		return 0, fmt.Errorf("register a schema under %s: %w", subject, err)
	}
	return out.ID, nil
}

// RegisterSchema registers s (its text, type, references, data-contract metadata and rules)
// under subject, or finds it registered there, and returns its global id.
func (c *Client) RegisterSchema(ctx context.Context, subject string, s Schema) (int, error) {
	var out struct {
		ID int `json:"id"`
	}
	req := schemaRequest{Schema: s.Schema, SchemaType: typeForRequest(s.Type()), References: s.References, Metadata: s.Metadata, RuleSet: s.RuleSet}
	if err := c.do(ctx, http.MethodPost, "subjects/"+esc(subject)+"/versions", req, &out); err != nil {
		return 0, fmt.Errorf("register a schema under %s: %w", subject, err)
	}
	return out.ID, nil
}

// LookUp finds the version of subject that holds schema (POST /subjects/{subject}).
// Not found is a *Error with code 40401 (no such subject) or 40403 (no such schema).
func (c *Client) LookUp(ctx context.Context, subject, schema string, typ SchemaType, refs []Reference) (Schema, error) {
	var out Schema
	err := c.do(ctx, http.MethodPost, "subjects/"+esc(subject), schemaRequest{Schema: schema, SchemaType: typeForRequest(typ), References: refs}, &out)
	if err != nil {
		return Schema{}, fmt.Errorf("look up a schema under %s: %w", subject, err)
	}
	return out, nil
}

// LookUpNormalized is LookUp with ?normalize=true: the registry normalizes the
// schema before it compares it with its versions (Confluent: canonical form, then
// normalized, so a text that the registry stores differently but means the same is
// found).
func (c *Client) LookUpNormalized(ctx context.Context, subject, schema string, typ SchemaType, refs []Reference) (Schema, error) {
	var out Schema
	err := c.do(ctx, http.MethodPost, "subjects/"+esc(subject)+"?normalize=true", schemaRequest{Schema: schema, SchemaType: typeForRequest(typ), References: refs}, &out)
	if err != nil {
		return Schema{}, fmt.Errorf("look up a schema under %s (normalized): %w", subject, err)
	}
	return out, nil
}

// GetVersion returns one version of a subject.
func (c *Client) GetVersion(ctx context.Context, subject string, version int) (Schema, error) {
	return c.getVersion(ctx, subject, strconv.Itoa(version))
}

// GetLatest returns the subject's latest version.
func (c *Client) GetLatest(ctx context.Context, subject string) (Schema, error) {
	return c.getVersion(ctx, subject, "latest")
}

func (c *Client) getVersion(ctx context.Context, subject, version string) (Schema, error) {
	var out Schema
	if err := c.do(ctx, http.MethodGet, "subjects/"+esc(subject)+"/versions/"+version, nil, &out); err != nil {
		return Schema{}, fmt.Errorf("get version %s of %s: %w", version, subject, err)
	}
	return out, nil
}

// GetByID returns the schema with a global id (Subject and Version are empty).
func (c *Client) GetByID(ctx context.Context, id int) (Schema, error) {
	var out Schema
	if err := c.do(ctx, http.MethodGet, "schemas/ids/"+strconv.Itoa(id), nil, &out); err != nil {
		return Schema{}, fmt.Errorf("get schema id %d: %w", id, err)
	}
	out.ID = id
	return out, nil
}

// Versions lists a subject's version numbers, ascending.
func (c *Client) Versions(ctx context.Context, subject string) ([]int, error) {
	var out []int
	if err := c.do(ctx, http.MethodGet, "subjects/"+esc(subject)+"/versions", nil, &out); err != nil {
		return nil, fmt.Errorf("list versions of %s: %w", subject, err)
	}
	return out, nil
}

// Subjects lists the registry's subjects.
func (c *Client) Subjects(ctx context.Context) ([]string, error) {
	var out []string
	if err := c.do(ctx, http.MethodGet, "subjects", nil, &out); err != nil {
		return nil, fmt.Errorf("list subjects: %w", err)
	}
	return out, nil
}

// GetConfig returns a subject's compatibility level, or the registry's global level
// when subject is "". A subject without its own level is a *Error with code 40408
// (use the global level then).
func (c *Client) GetConfig(ctx context.Context, subject string) (string, error) {
	p := "config"
	if subject != "" {
		p += "/" + esc(subject)
	}
	var out configBody
	if err := c.do(ctx, http.MethodGet, p, nil, &out); err != nil {
		return "", fmt.Errorf("get the compatibility level of %s: %w", orGlobal(subject), err)
	}
	if out.CompatibilityLevel != "" {
		return out.CompatibilityLevel, nil
	}
	return out.Compatibility, nil
}

// SetConfig sets a subject's compatibility level (the global one when subject is "").
func (c *Client) SetConfig(ctx context.Context, subject, level string) error {
	p := "config"
	if subject != "" {
		p += "/" + esc(subject)
	}
	if err := c.do(ctx, http.MethodPut, p, configBody{Compatibility: level}, nil); err != nil {
		return fmt.Errorf("set the compatibility level of %s to %s: %w", orGlobal(subject), level, err)
	}
	return nil
}

// SetConfigGroup sets a subject's compatibility level and its compatibility group
// (Confluent's compatibilityGroup: the metadata property whose value groups its
// versions; the registry checks a new version only against those of its group).
func (c *Client) SetConfigGroup(ctx context.Context, subject, level, group string) error {
	if err := c.do(ctx, http.MethodPut, "config/"+esc(subject), configBody{Compatibility: level, CompatibilityGroup: group}, nil); err != nil {
		return fmt.Errorf("set the compatibility level of %s to %s with compatibility group %s: %w", subject, level, group, err)
	}
	return nil
}

// TestCompatibility tests schema against a version of subject ("latest", a number, or
// "" for every version) at the subject's level, asking for the registry's messages.
func (c *Client) TestCompatibility(ctx context.Context, subject, version, schema string, typ SchemaType, refs []Reference) (Compatibility, error) {
	p := "compatibility/subjects/" + esc(subject) + "/versions"
	if version != "" {
		p += "/" + esc(version)
	}
	var out Compatibility
	if err := c.do(ctx, http.MethodPost, p+"?verbose=true", schemaRequest{Schema: schema, SchemaType: typeForRequest(typ), References: refs}, &out); err != nil {
		return Compatibility{}, fmt.Errorf("test compatibility with %s: %w", subject, err)
	}
	return out, nil
}

func orGlobal(subject string) string {
	if subject == "" {
		return "the registry"
	}
	return subject
}

func esc(s string) string { return url.PathEscape(s) }

// String names the registry in messages and logs, its password hidden.
func (c *Client) String() string { return "registry at " + c.base.Redacted() }

// do sends one request with retries and decodes the answer into out.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	u, err := c.base.Parse(path)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		err := c.once(ctx, method, u, body, out)
		if err == nil || !retryable(ctx, err) {
			return err
		}
		if attempt >= c.retries {
			if attempt == 0 {
				return err
			}
			return fmt.Errorf("%w (gave up after %d attempts)", err, attempt+1)
		}
		wait := c.backoff << attempt
		if wait > c.maxWait || wait <= 0 {
			wait = c.maxWait
		}
		wait = time.Duration(rand.Int64N(int64(wait) + 1)) // full jitter
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (gave up after %d attempt(s): %w)", err, attempt+1, ctx.Err())
		case <-t.C:
		}
	}
}

// errAttemptTimeout marks an attempt cut off by WithTimeout.
var errAttemptTimeout = errors.New("the registry did not answer in time")

// retryable: a 5xx answer or a timeout, while the caller's context is still live.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if e, ok := asError(err); ok {
		return e.Temporary()
	}
	if errors.Is(err, errAttemptTimeout) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// once sends one attempt; its errors name the URL with its password hidden.
func (c *Client) once(ctx context.Context, method string, u *url.URL, body []byte, out any) error {
	url := u.Redacted()
	actx, cancel := ctx, context.CancelFunc(func() {})
	if c.timeout > 0 {
		actx, cancel = context.WithTimeoutCause(ctx, c.timeout, errAttemptTimeout)
	}
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(actx, method, u.String(), rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", ContentType+", application/json")
	if body != nil {
		req.Header.Set("Content-Type", ContentType)
	}
	if c.auth != nil {
		c.auth(req)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() == nil && errors.Is(context.Cause(actx), errAttemptTimeout) {
			return fmt.Errorf("%s %s: %w", method, url, errAttemptTimeout)
		}
		return fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		if ctx.Err() == nil && errors.Is(context.Cause(actx), errAttemptTimeout) {
			return fmt.Errorf("%s %s: reading the answer: %w", method, url, errAttemptTimeout)
		}
		return fmt.Errorf("%s %s: reading the answer: %w", method, url, err)
	}
	if resp.StatusCode >= 300 {
		e := &Error{StatusCode: resp.StatusCode}
		if json.Unmarshal(data, e) != nil || (e.Code == 0 && e.Message == "") {
			e.Code = resp.StatusCode
			e.Message = strings.TrimSpace(string(data))
			if len(e.Message) > 200 {
				e.Message = e.Message[:200] + "..."
			}
		}
		return e
	}
	if out == nil || len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: the answer is not what the registry API describes: %w", method, url, err)
	}
	return nil
}
