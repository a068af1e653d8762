package ghgraphql

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Bounds on what the client reads.
const (
	MaxErrorBody = 64 << 10 // bytes of a non-200 body kept in HTTPError.Body
	MaxReplyBody = 32 << 20 // bytes of a 200 reply read at most
)

// Client posts GraphQL requests to one endpoint.
type Client struct {
	hc       *http.Client
	endpoint string
}

// New returns a client for endpoint (see EndpointFor) over hc, whose
// transport authenticates and sets the User-Agent (ghclient.NewHTTPClient
// does both). A nil hc is http.DefaultClient.
func New(hc *http.Client, endpoint string) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{hc: hc, endpoint: endpoint}
}

// Endpoint returns the GraphQL URL the client posts to.
func (c *Client) Endpoint() string { return c.endpoint }

// Do runs one operation and decodes its data into out (nil to discard).
// op names the operation in errors. mutation marks a request whose lost
// reply leaves an unknown outcome. With errors[] in the reply, Do decodes
// what data there is and returns *Errors.
func (c *Client) Do(ctx context.Context, op string, mutation bool, query string, vars map[string]any, out any) error {
	return c.do(ctx, op, mutation, "application/json", query, vars, out)
}

// do is Do with the Accept header given: a schema preview's media type
// enables the preview's members (see UpdateRefs).
func (c *Client) do(ctx context.Context, op string, mutation bool, accept, query string, vars map[string]any, out any) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return fmt.Errorf("GitHub GraphQL %s: %w", op, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("GitHub GraphQL %s: %w", op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	resp, err := c.hc.Do(req)
	if err != nil && resp != nil {
		// A redirect the client refused to follow (another host, a
		// loop): GitHub answered, and nothing past the redirect was sent.
		resp.Body.Close()
		return fmt.Errorf("GitHub GraphQL %s: %w", op, err)
	}
	if err != nil {
		if ctx.Err() != nil && !mutation {
			return fmt.Errorf("GitHub GraphQL %s: %w", op, ctx.Err())
		}
		return &NoReplyError{Op: op, Mutation: mutation, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return httpError(op, resp)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxReplyBody+1))
	if err != nil {
		return &NoReplyError{Op: op, Mutation: mutation, Err: err}
	}
	if len(raw) > MaxReplyBody {
		return fmt.Errorf("GitHub GraphQL %s: reply larger than %d bytes", op, MaxReplyBody)
	}
	return decodeReply(op, resp, raw, out)
}

func decodeReply(op string, resp *http.Response, raw []byte, out any) error {
	var reply struct {
		Data   json.RawMessage `json:"data"`
		Errors []Error         `json:"errors"`
	}
	if err := json.Unmarshal(raw, &reply); err != nil {
		return fmt.Errorf("GitHub GraphQL %s: reply is not JSON: %w", op, err)
	}
	if out != nil && len(reply.Data) > 0 && string(reply.Data) != "null" {
		if err := json.Unmarshal(reply.Data, out); err != nil {
			return fmt.Errorf("GitHub GraphQL %s: reply data: %w", op, err)
		}
	}
	if len(reply.Errors) > 0 {
		return &Errors{Op: op, Errors: reply.Errors, Status: resp.StatusCode, Header: resp.Header}
	}
	if len(reply.Data) == 0 || string(reply.Data) == "null" {
		return fmt.Errorf("GitHub GraphQL %s: reply has neither data nor errors", op)
	}
	return nil
}

// httpError reads at most MaxErrorBody bytes of a non-200 reply.
func httpError(op string, resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
	e := &HTTPError{Op: op, Status: resp.StatusCode, Header: resp.Header, Body: body}
	var b struct {
		Message          string  `json:"message"`
		DocumentationURL string  `json:"documentation_url"`
		Errors           []Error `json:"errors"`
	}
	if json.Unmarshal(body, &b) == nil {
		e.Message, e.DocumentationURL = b.Message, b.DocumentationURL
		if e.Message == "" && len(b.Errors) > 0 {
			e.Message = b.Errors[0].Message
		}
	}
	return e
}
