// Package githubapi is the bot's adapter over go-github: every list read page by
// page, every call retried politely, and the two ways to authenticate (a GitHub App's
// installations, or one token). The bot declares the few methods each of its parts
// calls as small interfaces where it uses them; this package's Client has them all.
package githubapi

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/google/go-github/v60/github"
)

// Client is GitHub's REST API over go-github: every list is read page by page, and
// every call is retried politely — after a primary rate limit until it resets, after a
// secondary one as long as Retry-After says, after a 5xx or a network error with
// exponential backoff and jitter — within MaxWait overall.
type Client struct {
	Client *github.Client
	// MaxAttempts and MaxWait bound the retries of one call (defaults 5 and 2 min).
	MaxAttempts int
	MaxWait     time.Duration
	// Sleep waits (tests replace it); it returns early when ctx ends.
	Sleep func(ctx context.Context, d time.Duration) error
}

// New wraps a go-github client.
func New(c *github.Client) *Client { return &Client{Client: c} }

func (a *Client) sleep(ctx context.Context, d time.Duration) error {
	if a.Sleep != nil {
		return a.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// call runs f, retrying what GitHub asks to be retried.
func (a *Client) call(ctx context.Context, f func() (*github.Response, error)) error {
	attempts, maxWait := a.MaxAttempts, a.MaxWait
	if attempts <= 0 {
		attempts = 5
	}
	if maxWait <= 0 {
		maxWait = 2 * time.Minute
	}
	var waited time.Duration
	backoff := 500 * time.Millisecond
	for i := 1; ; i++ {
		resp, err := f()
		if err == nil {
			return nil
		}
		wait, retry := retryAfter(resp, err, backoff)
		if !retry || i >= attempts || waited+wait > maxWait {
			return err
		}
		if err := a.sleep(ctx, wait); err != nil {
			return err
		}
		waited += wait
		backoff *= 2
	}
}

// retryAfter says whether an error is worth retrying and after how long.
func retryAfter(resp *github.Response, err error, backoff time.Duration) (time.Duration, bool) {
	var rl *github.RateLimitError
	var abuse *github.AbuseRateLimitError
	switch {
	case errors.As(err, &rl):
		return max(time.Until(rl.Rate.Reset.Time), time.Second), true
	case errors.As(err, &abuse):
		if abuse.RetryAfter != nil {
			return *abuse.RetryAfter, true
		}
		return time.Minute, true
	case resp != nil && resp.StatusCode == http.StatusTooManyRequests:
		// go-github v60 reads only 403 as a rate limit; GitHub also answers 429.
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			return time.Duration(s) * time.Second, true
		}
		if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return max(time.Until(time.Unix(reset, 0)), time.Second), true
		}
		return time.Minute, true
	case resp != nil && resp.StatusCode >= 500:
		return jitter(backoff), true
	case resp == nil:
		return jitter(backoff), true // the request did not get an answer
	}
	return 0, false
}

func jitter(d time.Duration) time.Duration {
	return d/2 + time.Duration(rand.Int64N(int64(d)))
}

// listAll reads every page of a list: fetch reads the page opt.Page names.
func listAll[T any](ctx context.Context, a *Client, opt *github.ListOptions, fetch func() ([]T, *github.Response, error)) ([]T, error) {
	var out []T
	for {
		var page []T
		var resp *github.Response
		err := a.call(ctx, func() (r *github.Response, err error) {
			page, r, err = fetch()
			resp = r
			return r, err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if resp.NextPage == 0 {
			return out, nil
		}
		opt.Page = resp.NextPage
	}
}

// String names the adapter in logs.
func (a *Client) String() string { return fmt.Sprintf("github api at %s", a.Client.BaseURL) }
