// Package slack is every Slack message the bot sends: a team's message about a pull
// request, reminders and escalations, the FYI to indirect owners, the producer's
// all-signed-off note, published versions, calendar reminders, registry drift alerts
// and the monthly health digest, and the client that posts them (slack-go, pointed
// at any Slack-compatible endpoint with APIURL).
package slack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/contractbot/contractbot/internal/outbound"
)

// Message is a message in Block Kit, with a plain-text fallback.
type Message struct {
	Text   string
	Blocks []slackgo.Block
}

// Digest identifies a message's content, so an unchanged message is not edited.
func (m Message) Digest() string {
	data, _ := json.Marshal(struct {
		T string
		B []slackgo.Block
	}{m.Text, m.Blocks})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// Client posts with slack-go.
type Client struct{ api *slackgo.Client }

// CallTimeout bounds one request to Slack (headers and body): a Slack that stalls
// fails the call after it instead of holding the caller.
const CallTimeout = 10 * time.Second

// Option configures New.
type Option func(*options)

type options struct {
	log     *slog.Logger
	timeout time.Duration
}

// WithTimeout bounds each request by d instead of CallTimeout.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithLog logs each request to Slack cut off by CallTimeout, with what it was.
func WithLog(log *slog.Logger) Option { return func(o *options) { o.log = log } }

// New returns a client for token; apiURL, when not empty, is the Slack Web API's
// base URL ("https://slack.com/api/" by default): a Slack-compatible endpoint or a
// test double. Each request is bounded by CallTimeout.
func New(token, apiURL string, opt ...Option) *Client {
	o := options{timeout: CallTimeout}
	for _, f := range opt {
		f(&o)
	}
	opts := []slackgo.Option{slackgo.OptionHTTPClient(outbound.Client("slack", o.timeout, o.log))}
	if apiURL != "" {
		opts = append(opts, slackgo.OptionAPIURL(apiURL))
	}
	return &Client{api: slackgo.New(token, opts...)}
}

// Post sends msg to channel, threaded under threadTS when given, and returns the new
// message's timestamp.
func (c *Client) Post(ctx context.Context, channel string, msg Message, threadTS string) (string, error) {
	opts := []slackgo.MsgOption{slackgo.MsgOptionText(msg.Text, false), slackgo.MsgOptionBlocks(msg.Blocks...)}
	if threadTS != "" {
		opts = append(opts, slackgo.MsgOptionTS(threadTS))
	}
	_, ts, err := c.api.PostMessageContext(ctx, channel, opts...)
	return ts, err
}

// RetryAfter is how long Slack asked to wait before the next call, when err is its
// rate limit (429 with Retry-After).
func RetryAfter(err error) (time.Duration, bool) {
	var rl *slackgo.RateLimitedError
	if errors.As(err, &rl) {
		return rl.RetryAfter, true
	}
	return 0, false
}

// Update edits the message at ts.
func (c *Client) Update(ctx context.Context, channel, ts string, msg Message) error {
	_, _, _, err := c.api.UpdateMessageContext(ctx, channel, ts, slackgo.MsgOptionText(msg.Text, false), slackgo.MsgOptionBlocks(msg.Blocks...))
	return err
}

// markerEvent is the Slack message metadata event type of the bot's keyed messages.
const markerEvent = "contractbot_reminder"

// PostMarked posts msg with the key in the message's metadata.
func (c *Client) PostMarked(ctx context.Context, channel string, msg Message, key string) error {
	_, _, err := c.api.PostMessageContext(ctx, channel, slackgo.MsgOptionText(msg.Text, false), slackgo.MsgOptionBlocks(msg.Blocks...),
		slackgo.MsgOptionMetadata(slackgo.SlackMetadata{EventType: markerEvent, EventPayload: map[string]any{"key": key}}))
	return err
}

// Marked looks through the channel's history since since for a message with key.
func (c *Client) Marked(ctx context.Context, channel, key string, since time.Time) (bool, error) {
	params := &slackgo.GetConversationHistoryParameters{ChannelID: channel, Oldest: fmt.Sprintf("%d.000000", since.Unix()), Limit: 200, IncludeAllMetadata: true}
	for {
		resp, err := c.api.GetConversationHistoryContext(ctx, params)
		if err != nil {
			return false, err
		}
		for _, m := range resp.Messages {
			if m.Metadata.EventType == markerEvent && m.Metadata.EventPayload["key"] == key {
				return true, nil
			}
		}
		if !resp.HasMore || resp.ResponseMetaData.NextCursor == "" {
			return false, nil
		}
		params.Cursor = resp.ResponseMetaData.NextCursor
	}
}

// keyedEvent is the Slack message metadata event type of the bot's messages about a
// pull request: each carries a key that names what it is (a team's message, a
// reminder mark, an FYI, the all-signed-off note), so the bot can find in Slack
// itself what it already sent.
const keyedEvent = "contractbot_pull_request"

// maxHistoryPages bounds the pages of a channel's history Keyed reads (200 messages
// each); a channel busier than that since the pull request opened is an error.
const maxHistoryPages = 10

// ErrHistoryTooLong says the channel's history since the pull request opened is longer
// than Keyed reads.
var ErrHistoryTooLong = errors.New("the channel's history is longer than contractbot reads")

// PostKeyed sends msg to channel, threaded under threadTS when given, with key in the
// message's metadata, and returns its timestamp.
func (c *Client) PostKeyed(ctx context.Context, channel string, msg Message, threadTS, key string) (string, error) {
	opts := []slackgo.MsgOption{slackgo.MsgOptionText(msg.Text, false), slackgo.MsgOptionBlocks(msg.Blocks...),
		slackgo.MsgOptionMetadata(slackgo.SlackMetadata{EventType: keyedEvent, EventPayload: map[string]any{"key": key}})}
	if threadTS != "" {
		opts = append(opts, slackgo.MsgOptionTS(threadTS))
	}
	_, ts, err := c.api.PostMessageContext(ctx, channel, opts...)
	return ts, err
}

// Keyed finds the messages posted with PostKeyed to channel since since whose key
// starts with prefix, and returns their timestamps by key: the channel's messages,
// and the replies in the threads of those whose key threaded says has a thread.
func (c *Client) Keyed(ctx context.Context, channel, prefix string, since time.Time, threaded func(key string) bool) (map[string]string, error) {
	out := map[string]string{}
	keep := func(ms []slackgo.Message) (threads []string) {
		for _, m := range ms {
			key, _ := m.Metadata.EventPayload["key"].(string)
			if m.Metadata.EventType != keyedEvent || !strings.HasPrefix(key, prefix) {
				continue
			}
			if _, seen := out[key]; !seen {
				out[key] = m.Timestamp
				if threaded(key) {
					threads = append(threads, m.Timestamp)
				}
			}
		}
		return threads
	}
	oldest := fmt.Sprintf("%d.000000", since.Unix())
	params := &slackgo.GetConversationHistoryParameters{ChannelID: channel, Oldest: oldest, Limit: 200, IncludeAllMetadata: true}
	var threads []string
	for page := 0; ; page++ {
		if page == maxHistoryPages {
			return nil, fmt.Errorf("read %s: %w", channel, ErrHistoryTooLong)
		}
		resp, err := c.api.GetConversationHistoryContext(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("read the history of %s: %w", channel, err)
		}
		threads = append(threads, keep(resp.Messages)...)
		if !resp.HasMore || resp.ResponseMetaData.NextCursor == "" {
			break
		}
		params.Cursor = resp.ResponseMetaData.NextCursor
	}
	for _, ts := range threads {
		rp := &slackgo.GetConversationRepliesParameters{ChannelID: channel, Timestamp: ts, Limit: 200, IncludeAllMetadata: true}
		for page := 0; ; page++ {
			if page == maxHistoryPages {
				return nil, fmt.Errorf("read the thread %s of %s: %w", ts, channel, ErrHistoryTooLong)
			}
			msgs, more, next, err := c.api.GetConversationRepliesContext(ctx, rp)
			if err != nil {
				return nil, fmt.Errorf("read the thread %s of %s: %w", ts, channel, err)
			}
			keep(msgs)
			if !more || next == "" {
				break
			}
			rp.Cursor = next
		}
	}
	return out, nil
}
