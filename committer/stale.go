package committer

import (
	"context"
	"errors"
	"fmt"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
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

// moved reports whether branch has moved on from head, with one ref read
// (GET git/ref/heads/{b}, which never redirects; conditional, so a head
// that has not moved costs a 304). It is only a saving: anything that
// cannot tell is "not moved", and the landing write's compare-and-swap
// decides as always.
func (c *Committer) moved(ctx context.Context, branch, head string) bool {
	if head == "" || ctx.Err() != nil {
		return false
	}
	_, sha, err := c.rest.Ref(ctx, "heads/"+branch)
	if err != nil {
		return false
	}
	return changes.IsSHA(sha) && sha != head
}

// watchMoved starts moved in the background, alongside a write, and
// returns the wait for its answer; the wait must be called.
func (c *Committer) watchMoved(ctx context.Context, branch, head string) (wait func() bool) {
	ch := make(chan bool, 1)
	go func() { ch <- c.moved(ctx, branch, head) }()
	return func() bool { return <-ch }
}

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
