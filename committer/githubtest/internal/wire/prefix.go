package wire

import (
	"context"
	"net/http"
)

type ctxKey int

const prefixKey ctxKey = 0

// WithPrefix records the API prefix ("" or "/api/v3") a request came in under.
func WithPrefix(ctx context.Context, p string) context.Context {
	return context.WithValue(ctx, prefixKey, p)
}

// PrefixOf is the API prefix WithPrefix recorded for r.
func PrefixOf(r *http.Request) string {
	p, _ := r.Context().Value(prefixKey).(string)
	return p
}
