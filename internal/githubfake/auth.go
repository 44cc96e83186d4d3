package githubfake

import (
	"cmp"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// installationTokenTTL is how long an installation token lives on GitHub.
const installationTokenTTL = time.Hour

// WithInstallationTokenTTL sets how long installation tokens live on the
// fake's clock (GitHub: an hour, the default); 0 makes them never expire, for
// tests that move the clock by days while the code under test refreshes
// tokens on the wall clock.
func WithInstallationTokenTTL(d time.Duration) Option {
	return func(s *Server) { s.tokenTTL = d }
}

type tokenInfo struct {
	login   string
	expires time.Time // zero: never
	app     bool      // an installation token: may write check runs
	// actions: GitHub Actions' GITHUB_TOKEN: it acts as github-actions[bot] and is
	// refused GET /user and team members (403), like an installation token.
	actions bool
}

type appConfig struct {
	id  int64
	key *rsa.PublicKey
}

// WithApp registers a GitHub App: POST /app/installations/{id}/access_tokens
// then accepts JWTs signed with the private half of key (RS256) whose iss claim
// is appID, and hands out installation tokens valid for an hour of the clock.
func WithApp(appID int64, key *rsa.PublicKey) Option {
	return func(s *Server) { s.app = &appConfig{id: appID, key: key} }
}

// AddInstallation installs the app on account (an organization or user
// login) as installation id. Webhook payloads for the account's repositories
// then carry the installation, and GET /repos/{owner}/{repo}/installation
// finds it.
func (s *Server) AddInstallation(id int64, account string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.installs[id] = account
}

// installationOf returns the installation on owner, or 0; callers hold s.mu.
func (s *Server) installationOf(owner string) int64 {
	var found int64
	for id, acct := range s.installs {
		if strings.EqualFold(acct, owner) && (found == 0 || id < found) {
			found = id
		}
	}
	return found
}

// appAuth checks the request's app JWT or answers 401; callers hold s.mu.
func (s *Server) appAuth(w http.ResponseWriter, r *http.Request) bool {
	tok := bearer(r)
	if tok == "" {
		writeError(w, http.StatusUnauthorized, "A JSON web token could not be decoded")
		return false
	}
	if err := s.verifyJWT(tok); err != nil {
		writeError(w, http.StatusUnauthorized, err.Error())
		return false
	}
	return true
}

// getRepoInstallation answers GET /repos/{owner}/{repo}/installation, which
// GitHub authenticates with the app's JWT.
func (s *Server) getRepoInstallation(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.appAuth(w, r) {
		return
	}
	rp, ok := s.repos[key(r.PathValue("owner"), r.PathValue("repo"))]
	id := s.installationOf(r.PathValue("owner"))
	if !ok || id == 0 {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, github.Installation{
		ID:      github.Int64(id),
		AppID:   github.Int64(s.app.id),
		Account: s.user(rp.owner),
	})
}

// AddToken makes the fake accept token for requests acting as login, as a
// personal access token: like GitHub, the fake refuses it (403) for writing
// check runs, which only GitHub Apps may do.
func (s *Server) AddToken(token, login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[token] = tokenInfo{login: login}
}

// ActionsLogin is the login GitHub Actions' GITHUB_TOKEN acts as.
const ActionsLogin = "github-actions[bot]"

// AddActionsToken makes the fake accept token as a workflow's GITHUB_TOKEN: it acts
// as github-actions[bot], and like on GitHub it may not read GET /user nor an
// organisation's team members (403 "Resource not accessible by integration"),
// nor write check runs.
func (s *Server) AddActionsToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[token] = tokenInfo{login: ActionsLogin, actions: true}
}

// RevokeToken makes the fake refuse token with 401 from now on.
func (s *Server) RevokeToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tokens, token)
}

// bearer returns the credential of an "Authorization: token X" or "Bearer X"
// header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	for _, scheme := range []string{"token ", "Bearer ", "bearer "} {
		if t, ok := strings.CutPrefix(h, scheme); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// authenticate resolves the request's token, or answers 401 as GitHub does
// and returns false.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (tokenInfo, bool) {
	tok := bearer(r)
	if tok == "" {
		writeError(w, http.StatusUnauthorized, "Requires authentication")
		return tokenInfo{}, false
	}
	s.mu.Lock()
	info, ok := s.tokens[tok]
	now := s.now()
	s.mu.Unlock()
	if !ok || (!info.expires.IsZero() && !now.Before(info.expires)) {
		writeError(w, http.StatusUnauthorized, "Bad credentials")
		return tokenInfo{}, false
	}
	return info, true
}

// jwtClaims are the claims GitHub reads from an app's JWT.
type jwtClaims struct {
	Iss json.RawMessage `json:"iss"`
	Iat int64           `json:"iat"`
	Exp int64           `json:"exp"`
}

// apiMessage is an error whose text is a message GitHub sends verbatim (capitalised,
// as GitHub writes it).
type apiMessage string

func (m apiMessage) Error() string { return string(m) }

const errJWTUndecodable = apiMessage("A JSON web token could not be decoded")

// verifyJWT checks an app JWT's shape, RS256 signature, issuer and times; the
// error text is the message GitHub's 401 carries.
func (s *Server) verifyJWT(tok string) error {
	if s.app == nil {
		return errJWTUndecodable
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return errJWTUndecodable
	}
	var header struct {
		Alg string `json:"alg"`
	}
	var claims jwtClaims
	hb, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	cb, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil ||
		json.Unmarshal(hb, &header) != nil || json.Unmarshal(cb, &claims) != nil {
		return errJWTUndecodable
	}
	if header.Alg != "RS256" {
		return errJWTUndecodable
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(s.app.key, crypto.SHA256, sum[:], sig) != nil {
		return errJWTUndecodable
	}
	iss := strings.Trim(string(claims.Iss), `"`)
	if iss != strconv.FormatInt(s.app.id, 10) {
		return apiMessage("'Issuer' claim ('iss') must be an Integer")
	}
	// The times may follow the fake's clock or the wall clock: code under
	// test that signs with time.Now must keep working when a test moves the
	// fake's clock.
	err := claims.timesValid(s.now().Unix())
	if err != nil && claims.timesValid(time.Now().Unix()) == nil {
		err = nil
	}
	return err
}

// timesValid checks exp and iat against now as GitHub does: exp in the
// future but at most ten minutes ahead, iat not in the future (a minute of
// skew allowed).
func (c jwtClaims) timesValid(now int64) error {
	if c.Exp <= now {
		return fmt.Errorf("'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires")
	}
	if c.Exp-now > 10*60+30 {
		return fmt.Errorf("'Expiration time' claim ('exp') is too far in the future")
	}
	if c.Iat > now+60 {
		return fmt.Errorf("'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued")
	}
	return nil
}

func (s *Server) createAccessToken(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.appAuth(w, r) {
		return
	}
	id, _ := pathInt(r, "id")
	if _, ok := s.installs[id]; !ok {
		notFound(w)
		return
	}
	expires := s.now().Add(cmp.Or(s.tokenTTL, installationTokenTTL))
	token := fmt.Sprintf("ghs_fake_%d_%d", id, s.id())
	info := tokenInfo{login: s.botLogin, expires: expires, app: true}
	if s.tokenTTL == 0 {
		info.expires = time.Time{}
	}
	s.tokens[token] = info
	writeJSON(w, http.StatusCreated, github.InstallationToken{
		Token:     github.String(token),
		ExpiresAt: &github.Timestamp{Time: expires.UTC()},
		Permissions: &github.InstallationPermissions{
			Checks:       github.String("write"),
			Contents:     github.String("read"),
			Issues:       github.String("write"),
			PullRequests: github.String("write"),
			Statuses:     github.String("write"),
			Members:      github.String("read"),
		},
	})
}
