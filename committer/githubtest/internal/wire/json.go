// Package wire holds what the fake's REST replies and requests share on
// the wire: JSON bodies (with GitHub's ETag, errors and Validation Failed
// bodies), request bodies decoded as GitHub does, base64 as GitHub wraps
// it, node IDs, and the URLs written into replies (the API prefix a
// request came in under, names escaped segment by segment).
package wire

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

type obj = map[string]any

// WriteJSON writes v with status; 2xx GET replies carry an ETag.
func WriteJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
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

// WriteError writes GitHub's error body: message, documentation_url, status.
func WriteError(w http.ResponseWriter, r *http.Request, status int, msg, doc string) {
	WriteJSON(w, r, status, obj{"message": msg, "documentation_url": doc, "status": strconv.Itoa(status)})
}

// ValidationError is one entry of a Validation Failed errors[] array.
type ValidationError struct {
	Resource string `json:"resource,omitempty"`
	Field    string `json:"field,omitempty"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

// WriteValidation writes a 422 Validation Failed body with errs.
func WriteValidation(w http.ResponseWriter, r *http.Request, doc string, errs ...ValidationError) {
	WriteJSON(w, r, http.StatusUnprocessableEntity, obj{
		"message": "Validation Failed", "errors": errs, "documentation_url": doc, "status": "422",
	})
}

// DecodeBody decodes a JSON object body into v. On failure it writes the
// GitHub error reply and returns false.
func DecodeBody(w http.ResponseWriter, r *http.Request, v any, doc string) bool {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		WriteError(w, r, http.StatusBadRequest, "Problems parsing JSON", doc)
		return false
	}
	trimmed := bytes.TrimSpace(raw)
	if !json.Valid(trimmed) {
		WriteError(w, r, http.StatusBadRequest, "Problems parsing JSON", doc)
		return false
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		WriteError(w, r, http.StatusBadRequest, "Body should be a JSON object", doc)
		return false
	}
	if err := json.Unmarshal(trimmed, v); err != nil {
		msg := "Invalid request."
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			msg = "Invalid request.\n\nFor '" + te.Field + "', " + te.Value + " is not a " + te.Type.String() + "."
		}
		WriteError(w, r, http.StatusUnprocessableEntity, msg, doc)
		return false
	}
	return true
}

// OptString is a JSON string field that records whether the key was present
// and whether it was null.
type OptString struct {
	Set, Null bool
	Val       string
}

// UnmarshalJSON records that the key was present, and whether it was null.
func (o *OptString) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.Val)
}

// Base64Lines encodes like GitHub: standard base64 with a newline every 60
// characters.
func Base64Lines(b []byte) string {
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

// NodeID is a node ID of kind for s, as the fake mints them.
func NodeID(kind, s string) string {
	return kind + "_" + base64.RawURLEncoding.EncodeToString([]byte(s))
}

// APIBase is the API root URL of a request, without a trailing slash.
func APIBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + PrefixOf(r)
}

// WebBase is the html root URL.
func WebBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
