package githubtest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

type installation struct {
	id, appID   int64
	owner, repo string
}

type instToken struct {
	installationID, appID int64
	expires               time.Time
}

// RegisterApp registers a GitHub App and the public key its JWTs are
// verified with.
func (s *Server) RegisterApp(appID int64, publicKey *rsa.PublicKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apps[appID] = publicKey
}

// InstallApp installs an app on owner/repo, so that
// GET /repos/{owner}/{repo}/installation finds it.
func (s *Server) InstallApp(appID, installationID int64, owner, repo string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.installs[installationID] = &installation{id: installationID, appID: appID, owner: owner, repo: repo}
}

// TokensIssued returns how many access tokens were issued for an installation.
func (s *Server) TokensIssued(installationID int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issued[installationID]
}

// verifyJWT checks an RS256 app JWT and returns the app ID it was issued by.
func (s *Server) verifyJWT(token string) (int64, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return 0, errors.New("not a JWT")
	}
	var hdr struct {
		Alg string `json:"alg"`
	}
	var claims struct {
		Iss json.RawMessage `json:"iss"`
		Exp int64           `json:"exp"`
	}
	hb, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	pb, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, err
	}
	if err := json.Unmarshal(hb, &hdr); err != nil || hdr.Alg != "RS256" {
		return 0, errors.New("'Authorization' header is not a valid RS256 JWT")
	}
	if err := json.Unmarshal(pb, &claims); err != nil {
		return 0, err
	}
	appID, err := strconv.ParseInt(strings.Trim(string(claims.Iss), `"`), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("'Issuer' claim ('iss') must be an Integer")
	}
	s.mu.Lock()
	key := s.apps[appID]
	s.mu.Unlock()
	if key == nil {
		return 0, errors.New("Integration not found")
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(key, crypto.SHA256, sum[:], sig); err != nil {
		return 0, errors.New("A JSON web token could not be decoded")
	}
	if claims.Exp == 0 || !s.now().Before(time.Unix(claims.Exp, 0)) {
		return 0, errors.New("'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires")
	}
	return appID, nil
}

func (s *Server) handleAccessToken(w http.ResponseWriter, r *http.Request) {
	appID, err := s.verifyJWT(bearer(r))
	if err != nil {
		wire.WriteError(w, r, http.StatusUnauthorized, err.Error(), docApps)
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("installation_id"), 10, 64)
	var raw [20]byte
	_, _ = rand.Read(raw[:])
	tok := "ghs_" + hex.EncodeToString(raw[:])
	expires := s.now().Add(s.tokenTTL)
	s.mu.Lock()
	inst, ok := s.installs[id]
	if ok && inst.appID == appID {
		s.tokens[tok] = &instToken{installationID: id, appID: appID, expires: expires}
		s.issued[id]++
	}
	s.mu.Unlock()
	if !ok || inst.appID != appID {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docApps)
		return
	}
	wire.WriteJSON(w, r, http.StatusCreated, obj{
		"token": tok, "expires_at": expires.UTC().Format(time.RFC3339),
		"permissions":          obj{"contents": "write", "pull_requests": "write", "metadata": "read"},
		"repository_selection": "selected",
	})
}

func (s *Server) handleRepoInstallation(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	appID, err := s.verifyJWT(bearer(r))
	if err != nil {
		wire.WriteError(w, r, http.StatusUnauthorized, err.Error(), docApps)
		return
	}
	s.mu.Lock()
	var found *installation
	for _, in := range s.installs {
		if in.appID == appID && strings.EqualFold(in.owner, rp.Owner) &&
			(in.repo == "" || strings.EqualFold(in.repo, rp.Name)) {
			found = in
			break
		}
	}
	s.mu.Unlock()
	if found == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", wire.DocRoot)
		return
	}
	api := wire.APIBase(r)
	wire.WriteJSON(w, r, http.StatusOK, obj{
		"id": found.id, "app_id": found.appID, "app_slug": "fake-app-" + strconv.FormatInt(found.appID, 10),
		"target_type": "User", "target_id": rp.ID * 7, "single_file_name": nil, "suspended_by": nil, "suspended_at": nil,
		"account":              wire.UserJSON(r, rp.Owner, rp.ID*7, "User"),
		"access_tokens_url":    api + "/app/installations/" + strconv.FormatInt(found.id, 10) + "/access_tokens",
		"repositories_url":     api + "/installation/repositories",
		"html_url":             wire.WebBase(r) + "/settings/installations/" + strconv.FormatInt(found.id, 10),
		"repository_selection": "selected",
		"permissions":          obj{"contents": "write", "pull_requests": "write", "metadata": "read"},
		"events":               []string{}, "created_at": rp.Created.UTC().Format(time.RFC3339),
		"updated_at": rp.Created.UTC().Format(time.RFC3339),
	})
}
