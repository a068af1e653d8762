package githubtest

import (
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Documentation URLs used in error bodies.
const (
	docRoot       = "https://docs.github.com/rest"
	docCreateBlob = "https://docs.github.com/rest/git/blobs#create-a-blob"
	docGetBlob    = "https://docs.github.com/rest/git/blobs#get-a-blob"
	docCreateTree = "https://docs.github.com/rest/git/trees#create-a-tree"
	docGetTree    = "https://docs.github.com/rest/git/trees#get-a-tree"
	docCreateCmt  = "https://docs.github.com/rest/git/commits#create-a-commit"
	docGetCmt     = "https://docs.github.com/rest/git/commits#get-a-commit-object"
	docGetRef     = "https://docs.github.com/rest/git/refs#get-a-reference"
	docMatchRefs  = "https://docs.github.com/rest/git/refs#list-matching-references"
	docCreateRef  = "https://docs.github.com/rest/git/refs#create-a-reference"
	docUpdateRef  = "https://docs.github.com/rest/git/refs#update-a-reference"
	docDeleteRef  = "https://docs.github.com/rest/git/refs#delete-a-reference"
	docBranch     = "https://docs.github.com/rest/branches/branches#get-a-branch"
	docRepoCommit = "https://docs.github.com/rest/commits/commits#get-a-commit"
	docContents   = "https://docs.github.com/rest/repos/contents#create-or-update-file-contents"
	docGetContent = "https://docs.github.com/rest/repos/contents#get-repository-content"
	docDelContent = "https://docs.github.com/rest/repos/contents#delete-a-file"
	docPulls      = "https://docs.github.com/rest/pulls/pulls#create-a-pull-request"
	docCreateRepo = "https://docs.github.com/rest/repos/repos#create-a-repository-for-the-authenticated-user"
	docSecondary  = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	docPrimary    = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-rate-limits"
	docApps       = "https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app"
)

const msgEmptyRepo = "Git Repository is empty."

type obj = map[string]any

// writeJSON writes v with status; 2xx GET replies carry an ETag.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"message":"Server Error"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	if r != nil && r.Method == http.MethodGet && status == http.StatusOK {
		sum := sha1.Sum(b)
		h.Set("ETag", `W/"`+hex.EncodeToString(sum[:])+`"`)
	}
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, r *http.Request, status int, msg, doc string) {
	writeJSON(w, r, status, obj{"message": msg, "documentation_url": doc, "status": strconv.Itoa(status)})
}

// validationError is one entry of a Validation Failed errors[] array.
type validationError struct {
	Resource string `json:"resource,omitempty"`
	Field    string `json:"field,omitempty"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

func writeValidation(w http.ResponseWriter, r *http.Request, doc string, errs ...validationError) {
	writeJSON(w, r, http.StatusUnprocessableEntity, obj{
		"message": "Validation Failed", "errors": errs, "documentation_url": doc, "status": "422",
	})
}

// decodeBody decodes a JSON object body into v. On failure it writes the
// GitHub error reply and returns false.
func decodeBody(w http.ResponseWriter, r *http.Request, v any, doc string) bool {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, r, http.StatusBadRequest, "Problems parsing JSON", doc)
		return false
	}
	trimmed := bytes.TrimSpace(raw)
	if !json.Valid(trimmed) {
		writeError(w, r, http.StatusBadRequest, "Problems parsing JSON", doc)
		return false
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		writeError(w, r, http.StatusBadRequest, "Body should be a JSON object", doc)
		return false
	}
	if err := json.Unmarshal(trimmed, v); err != nil {
		msg := "Invalid request."
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			msg = "Invalid request.\n\nFor '" + te.Field + "', " + te.Value + " is not a " + te.Type.String() + "."
		}
		writeError(w, r, http.StatusUnprocessableEntity, msg, doc)
		return false
	}
	return true
}

// optString is a JSON string field that records whether the key was present
// and whether it was null.
type optString struct {
	Set, Null bool
	Val       string
}

func (o *optString) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.Val)
}

// base64Lines encodes like GitHub: standard base64 with a newline every 60
// characters.
func base64Lines(b []byte) string {
	enc := base64.StdEncoding.EncodeToString(b)
	var sb strings.Builder
	sb.Grow(len(enc) + len(enc)/60 + 1)
	for len(enc) > 60 {
		sb.WriteString(enc[:60])
		sb.WriteByte('\n')
		enc = enc[60:]
	}
	sb.WriteString(enc)
	if sb.Len() > 0 {
		sb.WriteByte('\n')
	}
	return sb.String()
}

func nodeID(kind, s string) string {
	return kind + "_" + base64.RawURLEncoding.EncodeToString([]byte(s))
}

// apiBase is the API root URL of a request, without a trailing slash.
func apiBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + prefixOf(r)
}

// webBase is the html root URL.
func webBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
