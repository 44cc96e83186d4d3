// Package bot is the GitHub App: it turns webhook deliveries into jobs (Bot.Route,
// handed to internal/server, which verifies, queues and retries them), evaluates
// pull requests with the shared verdict and converges GitHub's state (one sticky
// comment, a check run, review requests, labels).
package bot
