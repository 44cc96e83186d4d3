package bot

import "context"

// onceGitHub remembers the pull request's comments for one evaluation, so reading the
// bot's previous state and updating its comment cost one listing, not two. Writes
// forget the listing.
type onceGitHub struct {
	GitHub
	comments map[int][]Comment
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
