package gitrepo

import (
	"regexp"
	"strconv"
)

// mergedPullRequest matches the two messages GitHub writes when it merges a pull
// request: a merge commit's "Merge pull request #42 from ..." and a squash's last
// line of the subject, "Title (#42)".
var mergedPullRequest = []*regexp.Regexp{
	regexp.MustCompile(`^Merge pull request #(\d+) `),
	regexp.MustCompile(`\(#(\d+)\)\s*(?:\n|$)`),
}

// MergedPullRequest is the number of the pull request a merge commit's message names,
// as GitHub writes it ("Merge pull request #42 from ..." or a squash "Title (#42)"),
// or 0 when it names none.
func MergedPullRequest(message string) int {
	for _, re := range mergedPullRequest {
		if m := re.FindStringSubmatch(message); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}
