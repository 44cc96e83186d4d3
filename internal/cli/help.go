package cli

import (
	"fmt"
	"go/doc/comment"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// helpWidth is the width help is wrapped to when it is not written to a terminal.
const helpWidth = 80

// setHelp makes every command's help read top-down for a newcomer: what the command
// does in one line, its usage, its examples, then the details and the flags, every
// line wrapped to the terminal's width (80 columns when not a terminal).
func setHelp(root *cobra.Command) {
	root.SetHelpFunc(func(c *cobra.Command, _ []string) {
		w := c.OutOrStdout()
		writeHelp(w, c, termWidth(w))
	})
	root.SetUsageFunc(func(c *cobra.Command) error {
		w := c.OutOrStderr()
		writeHelp(w, c, termWidth(w))
		return nil
	})
}

// termWidth is the width of the terminal w writes to, or helpWidth.
func termWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return helpWidth
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width < 40 {
		return helpWidth
	}
	return width
}

// writeHelp prints c's help wrapped to width columns.
func writeHelp(w io.Writer, c *cobra.Command, width int) {
	var b strings.Builder
	b.WriteString(wrapHanging(c.Short, width, 0))
	b.WriteString("\n\nUsage:\n")
	if c.Runnable() && !(c.HasParent() && c.HasAvailableSubCommands()) {
		b.WriteString(wrapHanging(c.UseLine(), width, 4, 2))
		b.WriteString("\n")
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "  %s [command]\n", c.CommandPath())
	}
	if c.Example != "" {
		b.WriteString("\nExamples:\n")
		b.WriteString(strings.TrimRight(c.Example, " \n"))
		b.WriteString("\n")
	}
	if c.Long != "" {
		b.WriteString("\n")
		b.WriteString(wrapText(c.Long, width))
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\nCommands:\n")
		pad := 0
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				pad = max(pad, len(sub.Name()))
			}
		}
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() {
				continue
			}
			line := fmt.Sprintf("  %-*s  %s", pad, sub.Name(), sub.Short)
			b.WriteString(wrapHanging(line, width, pad+4))
			b.WriteString("\n")
		}
	}
	if c.HasAvailableLocalFlags() {
		b.WriteString("\nFlags:\n")
		b.WriteString(flagUsages(c.LocalFlags(), width))
	}
	if c.HasAvailableInheritedFlags() {
		b.WriteString("\nGlobal flags:\n")
		b.WriteString(flagUsages(c.InheritedFlags(), width))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\nRun '%s COMMAND --help' for a command's help.\n", c.CommandPath())
	}
	_, _ = io.WriteString(w, b.String()) // help to a closed stdout has no one to tell
}

// flagUsages lists flags as pflag does (its names, value names and defaults), with
// the usages aligned in a column of at most a third of width; a flag whose name is
// wider has its usage on the lines below.
func flagUsages(fs *pflag.FlagSet, width int) string {
	type entry struct{ name, usage string }
	var es []entry
	for _, line := range strings.Split(strings.TrimRight(fs.FlagUsagesWrapped(0), "\n"), "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if len(es) > 0 && !strings.HasPrefix(trimmed, "-") {
			es[len(es)-1].usage += " " + trimmed
			continue
		}
		name, usage, _ := strings.Cut(line, "  ")
		if strings.TrimSpace(name) == "" {
			// "      --long" has no short form: its name starts after the first spaces.
			lead := len(line) - len(trimmed)
			name, usage, _ = strings.Cut(trimmed, "  ")
			name = line[:lead] + name
		}
		es = append(es, entry{name, strings.TrimSpace(usage)})
	}
	col := 0
	for _, e := range es {
		if len(e.name)+2 <= width/3 {
			col = max(col, len(e.name)+2)
		}
	}
	var b strings.Builder
	for _, e := range es {
		if len(e.name)+2 > col {
			b.WriteString(e.name + "\n")
			b.WriteString(wrapHanging(e.usage, width, col, col))
		} else {
			b.WriteString(wrapHanging(fmt.Sprintf("%-*s%s", col, e.name, e.usage), width, col))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// wrapText wraps a command's long text: paragraphs flow to width, indented blocks
// (tables, commands) stay as written. go/doc/comment's reading of text is the one Go
// uses for its own doc comments.
func wrapText(s string, width int) string {
	var p comment.Parser
	pr := comment.Printer{TextWidth: width, TextCodePrefix: "  "}
	return string(pr.Text(p.Parse(s)))
}

// wrapHanging wraps one line of text at spaces to width, indenting the lines after
// the first by indent spaces (and the first by first[0] when given).
func wrapHanging(s string, width, indent int, first ...int) string {
	lead := ""
	if len(first) > 0 {
		lead = strings.Repeat(" ", first[0])
	}
	var b strings.Builder
	line := lead
	for i, word := range strings.Split(s, " ") {
		switch {
		case i == 0:
			line += word
		case word != "" && strings.TrimSpace(line) != "" && len(line)+1+len(word) > width:
			b.WriteString(strings.TrimRight(line, " "))
			b.WriteString("\n")
			line = strings.Repeat(" ", indent) + word
		default:
			line += " " + word
		}
	}
	b.WriteString(line)
	return b.String()
}
