package contract

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A value that starts with one of *, &, !, @, ` or #, or that holds ": ", means
// something else to YAML than the text it looks like (an alias, an anchor, a tag, a
// reserved character, a comment, a nested key). The messages below say so and show the
// line with the value quoted, instead of YAML's own "found nothing" or "unexpected
// scalar value type".

// lineAt returns line n (from 1) of the file's text, without its line break.
func (f *file) lineAt(n int) string {
	if f.data == nil || n < 1 {
		return ""
	}
	lines := bytes.SplitN(f.data, []byte("\n"), n+1)
	if len(lines) < n {
		return ""
	}
	return strings.TrimRight(string(lines[n-1]), "\r")
}

// quoteHintAt is quoteHint of line n of the file.
func (f *file) quoteHintAt(n int) string { return quoteHint(f.lineAt(n)) }

// firstQuoteHint finds the first line of the file that quoteHint has a sentence for.
func (f *file) firstQuoteHint() (Pos, string) {
	for i, n := 0, bytes.Count(f.data, []byte("\n"))+1; i < n; i++ {
		line := f.lineAt(i + 1)
		if h := quoteHint(line); h != "" {
			return Pos{Line: i + 1, Column: len(line) - len(strings.TrimLeft(line, " -")) + 1}, h
		}
	}
	return Pos{}, ""
}

// reKeyLine splits "  - key: value" into its indentation and list dash, the key and
// the value; keys of the contract format are plain names.
var reKeyLine = regexp.MustCompile(`^(\s*(?:-\s+)?)([A-Za-z0-9_.-]+):\s+(.*)$`)

// listKeys are the keys whose value is a list of strings: the quoted value is shown
// as a list of one.
var listKeys = map[string]bool{"reads": true, "subjects": true, "github": true, "users": true, "tiers": true, "domains": true}

// quoteHint returns a sentence (with a leading space) for a line whose value YAML
// reads as something other than text, naming the character and showing the line with
// the value quoted; "" when the line has no such value.
func quoteHint(line string) string {
	m := reKeyLine.FindStringSubmatch(line)
	if m == nil {
		if dash, val, ok := strings.Cut(strings.TrimSpace(line), "- "); ok && dash == "" {
			m = []string{line, "- ", "", val} // a list item without a key
		} else {
			return ""
		}
	}
	key, val := m[2], strings.TrimSpace(m[3])
	var why, fixed string
	if strings.HasPrefix(val, "[") {
		inner := val[1:]
		if i := strings.LastIndex(inner, "]"); i >= 0 {
			inner = inner[:i]
		}
		parts := strings.Split(inner, ",")
		for i, p := range parts {
			p = strings.TrimSpace(p)
			if r := special(p); r != "" {
				why = firstOf(why, r)
				p = strconv.Quote(p)
			}
			parts[i] = p
		}
		fixed = "[" + strings.Join(parts, ", ") + "]"
	} else {
		why = special(val)
		fixed = strconv.Quote(val)
		if listKeys[key] {
			fixed = "[" + fixed + "]"
		}
	}
	if why == "" {
		return ""
	}
	if key != "" {
		fixed = key + ": " + fixed
	}
	return fmt.Sprintf(" In YAML %s; quote the value: %s", why, "`"+fixed+"`.")
}

// firstOf keeps the first reason found.
func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// special says why YAML does not read v as plain text, or "".
func special(v string) string {
	if v == "" || v[0] == '"' || v[0] == '\'' || v[0] == '{' {
		return ""
	}
	switch v[0] {
	case '*':
		return "a value that starts with * is an alias (a reference to an anchor)"
	case '&':
		return "a value that starts with & defines an anchor"
	case '!':
		return "a value that starts with ! is a tag"
	case '@', '`':
		return fmt.Sprintf("a value cannot start with %c (a reserved character)", v[0])
	case '#':
		return "# after a space starts a comment, so the value is cut off there"
	}
	if strings.Contains(v, ": ") {
		return `": " inside a value starts a nested key`
	}
	return ""
}

// misnamed reports whether a file name is a slip for want: another case, .yml for
// .yaml, or one letter off (contracts.yaml, contract.yml).
func misnamed(name, want string) bool {
	if name == want {
		return false
	}
	n := strings.ToLower(name)
	if strings.HasSuffix(n, ".yml") {
		n = strings.TrimSuffix(n, ".yml") + ".yaml"
	}
	return n == want || editDistance(n, want) <= 1
}

// renameTo is the sentence for a file that should be named want.
func renameTo(p, want string) string {
	return fmt.Sprintf("%s should be named %s (contractbot reads only that name; YAML files end in .yaml); rename it.", p, want)
}
