package bot

import "context"

// onceGitHub remembers the pull request's comments for one evaluation, so reading the
// bot's previous state and updating its comment cost one listing, not two. Writes
// forget the listing.
type onceGitHub struct {
	GitHub
	comments map[int][]Comment
	// runs remembers the bot's check run found on a commit: the seal check (internal/bot/memory)
	// and converge look up the same run in one evaluation. Writing a run forgets it.
	runs map[string]checkRunFound
}

type checkRunFound struct {
	ref   CheckRunRef
	found bool
}

func (g *onceGitHub) FindCheckRun(ctx context.Context, owner, repo, sha, name, app string) (CheckRunRef, bool, error) {
	key := owner + "/" + repo + "@" + sha + "/" + name + "/" + app
	if r, ok := g.runs[key]; ok {
		return r.ref, r.found, nil
	}
	ref, found, err := g.GitHub.FindCheckRun(ctx, owner, repo, sha, name, app)
	if err == nil {
		if g.runs == nil {
			g.runs = map[string]checkRunFound{}
		}
		g.runs[key] = checkRunFound{ref, found}
	}
	return ref, found, err
}

func (g *onceGitHub) CreateCheckRun(ctx context.Context, owner, repo string, in CheckRunInput) (int64, error) {
	g.runs = nil
	return g.GitHub.CreateCheckRun(ctx, owner, repo, in)
}

func (g *onceGitHub) UpdateCheckRun(ctx context.Context, owner, repo string, id int64, in CheckRunInput) error {
	g.runs = nil
	return g.GitHub.UpdateCheckRun(ctx, owner, repo, id, in)
}

func (g *onceGitHub) ListComments(ctx context.Context, owner, repo string, number int) ([]Comment, error) {
	if c, ok := g.comments[number]; ok {
		return c, nil
	}
	c, err := g.GitHub.ListComments(ctx, owner, repo, number)
	if err == nil {
		if g.comments == nil {
			g.comments = map[int][]Comment{}
		}
		g.comments[number] = c
	}
	return c, err
}

func (g *onceGitHub) CreateComment(ctx context.Context, owner, repo string, number int, body string) (Comment, error) {
	delete(g.comments, number)
	return g.GitHub.CreateComment(ctx, owner, repo, number, body)
}

func (g *onceGitHub) EditComment(ctx context.Context, owner, repo string, id int64, body string) error {
	g.comments = nil
	return g.GitHub.EditComment(ctx, owner, repo, id, body)
}

// forget drops the cached listing, so the next read sees what others wrote since.
func (g *onceGitHub) forget() { g.comments = nil }
