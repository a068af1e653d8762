package committer

import (
	"context"
	"errors"
	"fmt"
)

// errMoved ends an attempt before its landing write when the branch is no
// longer at the head the attempt was built on: the compare-and-swap would
// lose, so the write would be spent for nothing. The driver counts it as a
// lost race and starts again on the new head. errUnsent is errMoved
// before any write of the attempt: the attempt is made again without
// counting (up to WithMaxAttempts times); errMovedAfterWrites after some
// (a replaced directory's tree, or the tree and commit before the ref
// update), counted. A Git Data attempt looks only
// after a lost race (see contendedContext), so an uncontended commit sends
// no extra read; a GraphQL commit looks before its one write.
var (
	errMoved            = errors.New("the branch moved since it was read")
	errUnsent           = fmt.Errorf("%w, before any write", errMoved)
	errMovedAfterWrites = fmt.Errorf("%w, before the landing write", errMoved)
)

type contendedKey struct{}

// contendedContext marks the attempts of a work that lost a race: the
// branch is busy, so they read it again before their writes (see moved).
func contendedContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, contendedKey{}, true)
}

func isContended(ctx context.Context) bool {
	v, _ := ctx.Value(contendedKey{}).(bool)
	return v
}

// errRetry ends an attempt that must be made again without counting it
// (the repository stopped being empty while we bootstrapped it).
var errRetry = errors.New("retry")
