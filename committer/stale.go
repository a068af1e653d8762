package committer

import "context"

type contendedKey struct{}

// contendedContext marks the attempts of a work that lost a race: the
// branch is busy, so they read it again before their writes, and end
// before the landing write when it moved since it was read (built.moved):
// the compare-and-swap would lose, so the write would be spent for
// nothing. An uncontended commit sends no extra read; a GraphQL commit
// looks before its one write.
func contendedContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, contendedKey{}, true)
}

func isContended(ctx context.Context) bool {
	v, _ := ctx.Value(contendedKey{}).(bool)
	return v
}
