package contract

import (
	"fmt"
	"strings"
)

// fieldHint suggests what a field path that does not exist may have meant: a path a
// typo away ("Did you mean"), else paths whose last name matches or one letter off
// ("price" -> product_info.detail.price), else paths that hold it as a word ("total" ->
// amount_total), else the schema's top-level fields, so the message always shows what
// may be written.
func fieldHint(got string, paths []string) string {
	if h := didYouMean(got, paths); h != "" {
		return h
	}
	g := strings.ToLower(got)
	var byLast, byWord []string
	for _, p := range paths {
		lp := strings.ToLower(p)
		last := lp[strings.LastIndexByte(lp, '.')+1:]
		switch {
		case last == g || len(g) > 3 && editDistance(last, g) <= 1:
			byLast = append(byLast, p)
		case len(g) > 2 && hasWord(lp, g):
			byWord = append(byWord, p)
		}
	}
	for _, c := range [][]string{byLast, byWord} {
		if len(c) > 0 {
			return " Did you mean " + orList(c, 3) + "?"
		}
	}
	var top []string
	for _, p := range paths {
		if !strings.Contains(p, ".") {
			top = append(top, p)
		}
	}
	if len(top) == 0 {
		return ""
	}
	return fmt.Sprintf(" Its top-level fields are %s.", andList(top, 12))
}

// hasWord reports whether w is one of the words of a path (split at '.', '_' and '-').
func hasWord(path, w string) bool {
	for _, part := range strings.FieldsFunc(path, func(r rune) bool { return r == '.' || r == '_' || r == '-' }) {
		if part == w {
			return true
		}
	}
	return false
}

// orList quotes up to n names: "a", "b" or "c".
func orList(names []string, n int) string {
	q := make([]string, 0, n)
	for _, s := range names[:min(n, len(names))] {
		q = append(q, fmt.Sprintf("%q", s))
	}
	return joinLast(q, " or ")
}

// andList names up to n names, and how many more: a, b, c and 4 more.
func andList(names []string, n int) string {
	if len(names) > n {
		return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
	}
	return joinLast(names, " and ")
}

// joinLast joins with commas and last before the final element.
func joinLast(q []string, last string) string {
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + last + q[len(q)-1]
}
