package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestDocsCommands runs the commands that docs/*.md and README.md show, as a reader
// would, against a copy of the example tree, and compares their output where the docs
// show it:
//
//   - a fenced block labelled sh or shell: every line that starts with
//     `contractbot ` or `go run ./cmd/contractbot ` runs (through sh, so redirections
//     work) and must exit 0 or 1 (1: a finding, a change not ready); its output is not
//     shown, so it is not compared;
//   - a block labelled console: a line `$ contractbot ...` runs, and the lines after it
//     up to the next `$` are its output (stdout, then stderr), line for line; a line
//     `...` stands for any number of lines, a line ending in `...` for any line that
//     starts with what comes before it, and `$ echo $?` checks the exit status;
//   - the HTML comment `<!-- docs-test: output -->` before a fence makes that block
//     the output of the last command of the sh block before it, compared as a console
//     block's (README's "Try a change");
//   - the HTML comment `<!-- docs-test: skip: why -->` on the line before a fence
//     leaves that block out (a server, a network, a GitHub run, a machine's paths): the
//     test counts those and prints why with -v.
//
// The binary is built once per run; the folder the commands run in is a Git
// repository of the example tree (contracts/, calendar/) with a second commit adding
// examples/, jobs/, the lineage check fixtures and two OpenLineage event files, so
// HEAD~1 exists; origin/main names that commit.
func TestDocsCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	root := filepath.Join("..", "..")
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "contractbot"), "./cmd/contractbot")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	work := testutil.ExampleRepo(t)
	for _, d := range []string{"examples", "jobs", filepath.Join("internal", "cli", "testdata", "lineage", "check")} {
		testutil.CopyTree(t, filepath.Join(root, d), filepath.Join(work.Dir, d))
	}
	for _, f := range []string{"events.jsonl", "events-no-kafka.jsonl"} {
		testutil.CopyTree(t, filepath.Join("testdata", "lineage", f), filepath.Join(work.Dir, f))
	}
	head := work.Commit("Examples and jobs")
	// the docs name origin/main as the default branch (lint --rev origin/main, --history)
	if err := work.Git.Storer.SetReference(plumbing.NewHashReference("refs/remotes/origin/main", head)); err != nil {
		t.Fatal(err)
	}

	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	ran, skipped := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, f)
		for _, b := range docBlocks(string(data)) {
			where := name + ":" + strconv.Itoa(b.line)
			if b.skip != "" {
				skipped++
				t.Logf("%s: skipped: %s", where, b.skip)
				continue
			}
			for _, c := range b.commands {
				ran++
				out, code := runDocCommand(t, bin, work.Dir, c.command)
				switch {
				case b.lang == "console" || c.shown != nil:
					if msg := matchShown(c.shown, out, code); msg != "" {
						t.Errorf("%s: $ %s\n%s\n--- got (exit %d)\n%s", where, c.command, msg, code, out)
					}
				case code > 1:
					t.Errorf("%s: %s: exit %d\n%s", where, c.command, code, out)
				}
			}
		}
	}
	t.Logf("%d commands run, %d blocks skipped", ran, skipped)
	if ran < 20 {
		t.Errorf("only %d commands of the docs ran", ran)
	}
}

type docBlock struct {
	line     int    // of the fence, 1-based
	lang     string // sh or console
	skip     string // why the block is left out, or ""
	commands []docCommand
}

type docCommand struct {
	command string
	shown   []string // the output lines the docs show, and `$ echo $?` as "$?=N"
}

var (
	docFence       = regexp.MustCompile("^```([a-z]*)\\s*$")
	docOutput      = "<!-- docs-test: output -->"
	docSkip        = regexp.MustCompile(`^<!-- docs-test: skip: (.+) -->$`)
	docCommandLine = regexp.MustCompile(`^(contractbot|go run \./cmd/contractbot) `)
)

// docBlocks finds the sh, shell and console blocks of a Markdown text that hold a
// contractbot command.
func docBlocks(md string) []docBlock {
	lines := strings.Split(md, "\n")
	var out []docBlock
	for i := 0; i < len(lines); i++ {
		m := docFence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		end := i + 1
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		b := docBlock{line: i + 1, lang: m[1]}
		if b.lang == "shell" {
			b.lang = "sh"
		}
		body := lines[i+1 : min(end, len(lines))]
		if i > 0 {
			if s := docSkip.FindStringSubmatch(lines[i-1]); s != nil {
				b.skip = s[1]
			}
			if lines[i-1] == docOutput && len(out) > 0 && out[len(out)-1].lang == "sh" {
				prev := &out[len(out)-1].commands
				(*prev)[len(*prev)-1].shown = append([]string{}, body...)
				i = end
				continue
			}
		}
		switch b.lang {
		case "sh":
			for j := 0; j < len(body); j++ {
				if !docCommandLine.MatchString(body[j]) {
					continue
				}
				c := body[j]
				for strings.HasSuffix(c, "\\") && j+1 < len(body) {
					j++
					c = strings.TrimSuffix(c, "\\") + " " + strings.TrimSpace(body[j])
				}
				b.commands = append(b.commands, docCommand{command: c})
			}
		case "console":
			for _, l := range body {
				switch {
				case l == "$ echo $?" && len(b.commands) > 0:
					last := &b.commands[len(b.commands)-1]
					last.shown = append(last.shown, "$?=")
				case strings.HasPrefix(l, "$ "):
					b.commands = append(b.commands, docCommand{command: strings.TrimPrefix(l, "$ ")})
				case len(b.commands) > 0:
					last := &b.commands[len(b.commands)-1]
					if n := len(last.shown); n > 0 && last.shown[n-1] == "$?=" {
						last.shown[n-1] += l
						continue
					}
					last.shown = append(last.shown, l)
				}
			}
		}
		if len(b.commands) > 0 && (b.skip != "" || b.lang == "sh" || b.lang == "console") {
			out = append(out, b)
		}
		i = end
	}
	return out
}

// runDocCommand runs one command line through sh in dir, with the binary first on
// PATH and `go run ./cmd/contractbot` read as `contractbot`; it returns stdout then
// stderr, and the exit status.
func runDocCommand(t *testing.T, bin, dir, line string) (string, int) {
	t.Helper()
	line = strings.Replace(line, "go run ./cmd/contractbot ", "contractbot ", 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GITHUB_ACTIONS=", "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stdout.String() + stderr.String(), 0
	case errors.As(err, &exit):
		return stdout.String() + stderr.String(), exit.ExitCode()
	}
	t.Fatalf("%s: %v", line, err)
	return "", 0
}

// matchShown compares the output a console block shows with what the command printed
// (see TestDocsCommands for `...`), and the exit status with `$ echo $?`'s; it
// returns what differs, or "".
func matchShown(shown []string, out string, code int) string {
	got := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var want []string
	for _, s := range shown {
		if n, ok := strings.CutPrefix(s, "$?="); ok {
			if n != strconv.Itoa(code) {
				return "the docs show exit status " + n
			}
			continue
		}
		want = append(want, strings.TrimRight(s, " "))
	}
	if !linesMatch(want, got) {
		return "--- the docs show\n" + strings.Join(want, "\n")
	}
	return ""
}

// linesMatch matches want against got: "..." (indented or not) skips any number of
// lines, a line ending in "..." matches a line with that prefix.
func linesMatch(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0 || (len(got) == 1 && got[0] == "")
	}
	if strings.TrimSpace(want[0]) == "..." {
		for i := 0; i <= len(got); i++ {
			if linesMatch(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 {
		return false
	}
	w, g := want[0], strings.TrimRight(got[0], " ")
	if p, ok := strings.CutSuffix(w, "..."); ok {
		if !strings.HasPrefix(g, p) {
			return false
		}
	} else if w != g {
		return false
	}
	return linesMatch(want[1:], got[1:])
}

// TestDocsExampleTree: docs/contract-format.md's table of the example tree lists every
// subject of the tree, with its folder, format, owner, tier and level, and no other.
func TestDocsExampleTree(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "contract-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "The example tree (")
	if !ok {
		t.Fatal(`docs/contract-format.md has no "The example tree (" table`)
	}
	var doc []string
	for _, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "| `") {
			if len(doc) > 0 {
				break
			}
			continue
		}
		doc = append(doc, strings.ReplaceAll(line, "`", ""))
	}
	tree, err := contract.Load(contract.NewDirSource(filepath.Join("..", "..")))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range tree.Subjects {
		want = append(want, fmt.Sprintf("| %s | %s | %s | %s | %s | %s |",
			strings.TrimPrefix(s.Dir, "contracts/"), s.Subject, s.Format, s.Owner, s.Tier, s.Compatibility))
	}
	sort.Strings(doc)
	sort.Strings(want)
	if strings.Join(doc, "\n") != strings.Join(want, "\n") {
		t.Errorf("the table in docs/contract-format.md:\n%s\nthe tree:\n%s", strings.Join(doc, "\n"), strings.Join(want, "\n"))
	}
}
