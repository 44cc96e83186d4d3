package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/verdict"
)

// Command is a `/contractbot ...` line in a pull-request comment.
type Command struct {
	Name string // recheck, remind, override, or what was written
	Arg  string // the override's reason
}

// ParseCommand finds the first command of a comment: a line whose first text is
// /contractbot, outside what Markdown shows as code or a quotation. A line inside a
// fenced code block (``` or ~~~), quoted (>), or indented by 4 spaces or a tab (an
// indented code block) does not count: an admin explaining the command, or quoting
// someone who used it, does not give it.
func ParseCommand(body string) (Command, bool) {
	fence := "" // the fence that opened the code block we are in
	for _, raw := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n") {
		indent := len(raw) - len(strings.TrimLeft(raw, " "))
		line := strings.TrimSpace(raw)
		if f := fenceOf(line); f != "" && indent < 4 {
			switch {
			case fence == "":
				fence = f
			case f[0] == fence[0] && len(f) >= len(fence) && strings.Trim(line, f[:1]) == "":
				fence = ""
			}
			continue
		}
		if fence != "" || indent >= 4 || strings.HasPrefix(strings.TrimLeft(raw, " "), "\t") {
			continue
		}
		rest, ok := strings.CutPrefix(line, "/contractbot")
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		name, arg, _ := strings.Cut(strings.TrimSpace(rest), " ")
		return Command{Name: strings.ToLower(name), Arg: strings.TrimSpace(arg)}, true
	}
	return Command{}, false
}

// fenceOf returns the run of backticks or tildes (three or more) a line starts with,
// or "" when it does not open or close a fenced code block.
func fenceOf(line string) string {
	for _, c := range "`~" {
		if n := len(line) - len(strings.TrimLeft(line, string(c))); n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// HelpText answers an unknown command.
const HelpText = "contractbot commands (write one as the first text of a line of a comment, not in a code block or a quotation):\n\n" +
	"- `/contractbot recheck`: evaluate the pull request again\n" +
	"- `/contractbot remind`: send the pending teams a reminder on Slack now\n" +
	"- `/contractbot override <reason>`: let the change merge without what it still needs (admins only; recorded with who and why)"

// commentEvent is the part of an issue_comment payload the bot reads.
type commentEvent struct {
	repoRef
	Action string `json:"action"`
	Issue  struct {
		Number      int              `json:"number"`
		PullRequest *json.RawMessage `json:"pull_request"`
	} `json:"issue"`
	Comment struct {
		ID   int64  `json:"id"`
		Body string `json:"body"`
		User struct {
			Login string `json:"login"`
			Type  string `json:"type"`
		} `json:"user"`
	} `json:"comment"`
}

// routeComment turns a new pull-request comment with a command into a job.
func (b *Bot) routeComment(d server.Delivery) (*server.Job, error) {
	var ev commentEvent
	if err := json.Unmarshal(d.Payload, &ev); err != nil {
		return nil, fmt.Errorf("issue_comment payload: %w", err)
	}
	if ev.Action != "created" || ev.Issue.PullRequest == nil || ev.Comment.User.Type == "Bot" || strings.EqualFold(ev.Comment.User.Login, b.Self) {
		return nil, nil
	}
	cmd, ok := ParseCommand(ev.Comment.Body)
	if !ok {
		return nil, nil
	}
	owner, repo, n := ev.Repository.Owner.Login, ev.Repository.Name, ev.Issue.Number
	if owner == "" || repo == "" || n == 0 {
		return nil, fmt.Errorf("issue_comment payload without repository or issue number")
	}
	if err := checkTarget(d.Event, owner, repo, n); err != nil {
		return nil, err
	}
	author := ev.Comment.User.Login
	log := b.Log.With("delivery", d.ID, "repository", owner+"/"+repo, "pull_request", n, "command", cmd.Name, "by", author)
	show := b.showFailure(owner, repo, n, ev.Installation.ID, log)
	// A command is a job the queue never drops for a newer event of the pull
	// request: it is carried out, or, when every attempt failed, answered.
	return &server.Job{Key: fmt.Sprintf("%s/%s#%d", owner, repo, n), Command: true, Run: func(ctx context.Context) error {
		if err := b.runCommand(ctx, owner, repo, n, ev.Installation.ID, cmd, author, ev.Comment.ID, log); err != nil {
			return fmt.Errorf("run /contractbot %s on %s/%s#%d: %w", cmd.Name, owner, repo, n, err)
		}
		return nil
	}, Failed: func(ctx context.Context, err error, final bool) {
		show(ctx, err, final)
		if !final {
			return
		}
		gh, _, cerr := b.clients(ctx, owner, repo, ev.Installation.ID)
		if cerr == nil {
			cerr = reply(ctx, gh, owner, repo, n, fmt.Sprintf("@%s contractbot could not carry out `/contractbot %s` (a failure of the bot or of a service it needs, logged for its operators); write the command again to retry.", author, strings.ReplaceAll(cmd.Name, "`", "")))
		}
		if cerr != nil {
			log.Error("could not answer the command that failed", "err", cerr)
		}
	}}, nil
}

// runCommand carries out a command.
// An override is an admin's comment: the bot records its id and checks it again at
// every later evaluation (override.go).
func (b *Bot) runCommand(ctx context.Context, owner, repo string, n int, inst int64, cmd Command, author string, commentID int64, log *slog.Logger) error {
	switch cmd.Name {
	case "recheck":
		return b.evaluate(ctx, owner, repo, n, inst, evalOptions{}, log)
	case "remind":
		return b.evaluate(ctx, owner, repo, n, inst, evalOptions{remindAll: true}, log)
	case "override":
		gh, _, err := b.clients(ctx, owner, repo, inst)
		if err != nil {
			return err
		}
		if cmd.Arg == "" {
			return reply(ctx, gh, owner, repo, n, "@"+author+" an override needs a reason: `/contractbot override <why this change may merge now>`.")
		}
		allowed, err := b.isAdmin(ctx, gh, author)
		if err != nil {
			return err
		}
		if !allowed {
			log.Warn("override refused")
			return reply(ctx, gh, owner, repo, n, fmt.Sprintf("@%s only members of %s may override contractbot; ask one of them.", author, orDash(b.AdminTeam)))
		}
		log.Info("override", "reason", cmd.Arg)
		o := &verdict.Override{By: author, Reason: cmd.Arg, At: b.now(), CommentID: commentID}
		return b.evaluate(ctx, owner, repo, n, inst, evalOptions{override: o}, log)
	}
	gh, _, err := b.clients(ctx, owner, repo, inst)
	if err != nil {
		return err
	}
	return reply(ctx, gh, owner, repo, n, fmt.Sprintf("@%s I do not know `/contractbot %s`.\n\n%s", author, strings.ReplaceAll(cmd.Name, "`", ""), HelpText))
}

// isAdmin reports whether login belongs to the admin team (org/slug).
func (b *Bot) isAdmin(ctx context.Context, gh teams, login string) (bool, error) {
	org, slug, ok := strings.Cut(strings.TrimPrefix(b.AdminTeam, "@"), "/")
	if !ok {
		return false, nil
	}
	members, err := gh.TeamMembers(ctx, org, slug)
	if err != nil {
		return false, fmt.Errorf("read the admin team %s: %w", b.AdminTeam, err)
	}
	for _, m := range members {
		if strings.EqualFold(m, login) {
			return true, nil
		}
	}
	return false, nil
}

func orDash(s string) string {
	if s == "" {
		return "the admin team (none is configured)"
	}
	return s
}

// reply posts a comment that answers a command.
func reply(ctx context.Context, gh comments, owner, repo string, n int, body string) error {
	_, err := gh.CreateComment(ctx, owner, repo, n, body)
	return err
}
