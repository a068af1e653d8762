package lfs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// MediaType is the batch API's media type.
const MediaType = "application/vnd.git-lfs+json"

// maxReply bounds what is read of a batch reply or an error body.
const maxReply = 8 << 20

// Client talks to one repository's LFS server: the batch API with the
// caller's API client (which carries the credential), and the storage
// hrefs it answers with Storage, a client of its own that adds nothing
// but the headers the batch reply gives.
type Client struct {
	API     *http.Client
	Storage *http.Client
	// Endpoint is the repository's LFS URL, without a trailing slash:
	// https://HOST/OWNER/REPO.git/info/lfs.
	Endpoint string
}

// Endpoint is the LFS URL of owner/repo on the GitHub instance whose REST
// API is at api: https://github.com/... for api.github.com, the API's own
// host otherwise (GHES serves LFS at https://HOST/, outside /api/v3/).
func Endpoint(api, owner, repo string) (string, error) {
	u, err := url.Parse(api)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("LFS endpoint of API URL %q: not a URL", api)
	}
	host := u.Host
	if strings.EqualFold(u.Hostname(), "api.github.com") {
		host = "github.com"
	}
	return u.Scheme + "://" + host + "/" + url.PathEscape(owner) + "/" + url.PathEscape(repo) + ".git/info/lfs", nil
}

// Upload is an object to upload, and how to read its content.
type Upload struct {
	Object
	Open func() (io.ReadCloser, error)
}

type action struct {
	Href   string            `json:"href"`
	Header map[string]string `json:"header"`
}

type batchObject struct {
	Object
	Actions map[string]action `json:"actions"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type batchReply struct {
	Transfer string        `json:"transfer"`
	Objects  []batchObject `json:"objects"`
}

// Error is a refusal of the LFS server: of the whole batch (Object empty),
// of one object, or of a storage request (Storage).
type Error struct {
	Status  int // the HTTP status, or the object's error code
	Object  Object
	Message string
	Storage bool
}

func (e *Error) Error() string {
	switch {
	case e.Storage:
		return fmt.Sprintf("LFS storage answered %d %s", e.Status, e.Message)
	case e.Object.OID != "":
		return fmt.Sprintf("LFS object %s: %d %s", e.Object, e.Status, e.Message)
	}
	return fmt.Sprintf("LFS batch API: %d %s", e.Status, e.Message)
}

// batch asks the batch API for operation ("upload" or "download") on objs.
func (c *Client) batch(ctx context.Context, operation string, objs []Object) (map[string]batchObject, error) {
	body, _ := json.Marshal(map[string]any{"operation": operation, "transfers": []string{"basic"}, "objects": objs, "hash_algo": "sha256"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint+"/objects/batch", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", MediaType)
	req.Header.Set("Content-Type", MediaType)
	resp, err := c.API.Do(req)
	if err != nil {
		return nil, fmt.Errorf("LFS batch API: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReply))
	if err != nil {
		return nil, fmt.Errorf("LFS batch API: read reply: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &Error{Status: resp.StatusCode, Message: messageOf(data)}
	}
	var reply batchReply
	if err := json.Unmarshal(data, &reply); err != nil {
		return nil, fmt.Errorf("LFS batch API: malformed reply: %w", err)
	}
	if reply.Transfer != "" && reply.Transfer != "basic" {
		return nil, fmt.Errorf("LFS batch API: answered with transfer %q, want basic", reply.Transfer)
	}
	out := map[string]batchObject{}
	for _, o := range reply.Objects {
		out[o.OID] = o
	}
	for _, o := range objs {
		got, ok := out[o.OID]
		switch {
		case !ok:
			return nil, fmt.Errorf("LFS batch API: reply has no object %s", o)
		case got.Error != nil:
			return nil, &Error{Status: got.Error.Code, Object: o, Message: got.Error.Message}
		}
	}
	return out, nil
}

// messageOf is the message of an LFS error body, else its start.
func messageOf(data []byte) string {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &e) == nil && e.Message != "" {
		return e.Message
	}
	return strings.TrimSpace(string(data[:min(len(data), 200)]))
}

// UploadAll uploads the objects of ups that the server does not have yet
// (it answers no upload action for those it has), then verifies each when
// the server asks for it.
func (c *Client) UploadAll(ctx context.Context, ups []Upload) error {
	if len(ups) == 0 {
		return nil
	}
	objs := make([]Object, len(ups))
	for i, u := range ups {
		objs[i] = u.Object
	}
	got, err := c.batch(ctx, "upload", objs)
	if err != nil {
		return err
	}
	for _, u := range ups {
		acts := got[u.OID].Actions
		up, ok := acts["upload"]
		if !ok {
			continue // already stored
		}
		if err := c.put(ctx, up, u); err != nil {
			return err
		}
		if v, ok := acts["verify"]; ok {
			if err := c.verify(ctx, v, u.Object); err != nil {
				return err
			}
		}
	}
	return nil
}

// storage sends req (to a storage href) with the action's headers only.
func (c *Client) storage(req *http.Request, a action, want int) error {
	for k, v := range a.Header {
		req.Header.Set(k, v)
	}
	resp, err := c.Storage.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 || want != 0 && resp.StatusCode != want {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return &Error{Status: resp.StatusCode, Message: messageOf(data), Storage: true}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxReply))
	return nil
}

func (c *Client) put(ctx context.Context, a action, u Upload) error {
	rc, err := u.Open()
	if err != nil {
		return fmt.Errorf("LFS upload %s: read content: %w", u.Object, err)
	}
	defer rc.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, a.Href, io.LimitReader(rc, u.Size))
	if err != nil {
		return fmt.Errorf("LFS upload %s: %w", u.Object, err)
	}
	req.ContentLength = u.Size
	req.Header.Set("Content-Type", "application/octet-stream")
	if err := c.storage(req, a, 0); err != nil {
		return fmt.Errorf("LFS upload %s: %w", u.Object, err)
	}
	return nil
}

func (c *Client) verify(ctx context.Context, a action, o Object) error {
	body, _ := json.Marshal(o)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.Href, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("LFS verify %s: %w", o, err)
	}
	req.Header.Set("Accept", MediaType)
	req.Header.Set("Content-Type", MediaType)
	if err := c.storage(req, a, 0); err != nil {
		return fmt.Errorf("LFS verify %s: %w", o, err)
	}
	return nil
}

// Download reads the object o from storage; its content is checked
// against o.
func (c *Client) Download(ctx context.Context, o Object, limit int64) ([]byte, error) {
	if o.Size > limit {
		return nil, fmt.Errorf("LFS object %s is over the %d bytes an edit may read", o, limit)
	}
	got, err := c.batch(ctx, "download", []Object{o})
	if err != nil {
		return nil, err
	}
	a, ok := got[o.OID].Actions["download"]
	if !ok {
		return nil, fmt.Errorf("LFS download %s: the batch reply has no download action", o)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.Href, nil)
	if err != nil {
		return nil, fmt.Errorf("LFS download %s: %w", o, err)
	}
	for k, v := range a.Header {
		req.Header.Set(k, v)
	}
	resp, err := c.Storage.Do(req)
	if err != nil {
		return nil, fmt.Errorf("LFS download %s: %w", o, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("LFS download %s: %w", o, &Error{Status: resp.StatusCode, Message: messageOf(data), Storage: true})
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, o.Size+1))
	if err != nil {
		return nil, fmt.Errorf("LFS download %s: %w", o, err)
	}
	if h, _ := Hash(bytes.NewReader(data)); h != o {
		return nil, fmt.Errorf("LFS download %s: content is %s", o, h)
	}
	return data, nil
}
