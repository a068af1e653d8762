package wire

import (
	"context"
	"net/http"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
)

type identCtxKey int

const identKey identCtxKey = iota

// IdentOf is the identity WithIdentity recorded for r, or DefaultIdentity's
// octocat when none was.
func IdentOf(r *http.Request) state.Identity {
	id, ok := r.Context().Value(identKey).(state.Identity)
	if !ok {
		return DefaultIdentity("")
	}
	return id
}

// WithIdentity records the identity a request authenticated as, for IdentOf.
func WithIdentity(ctx context.Context, id state.Identity) context.Context {
	return context.WithValue(ctx, identKey, id)
}

// DefaultIdentity is the octocat identity of a request authenticated with
// token (the server's token, or any token or none when it requires none).
func DefaultIdentity(token string) state.Identity {
	return state.Identity{Token: token, Login: "octocat", Name: "The Octocat", Email: "octocat@users.noreply.github.com", UserID: 1}
}
