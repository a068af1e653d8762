package refs

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// Tag is the tag a commit asks for (committer.Tag).
type Tag struct {
	Name    string // "": no tag
	Message string // "": lightweight; else an annotated tag object
	Force   bool   // move an existing tag
}

// Ref is the tag's full ref name.
func (t Tag) Ref() string { return "refs/tags/" + t.Name }

// tagTarget returns what the tag ref points at for commit: the commit, or
// a new annotated tag object on it (POST git/tags; one write). See
// https://docs.github.com/rest/git/tags#create-a-tag-object.
func (r *Refs) tagTarget(ctx context.Context, t Tag, commit string) (string, error) {
	if t.Message == "" {
		return commit, nil
	}
	sha, err := r.rest.CreateTag(ctx, t.Name, t.Message, commit)
	if err != nil {
		if r := rest.Refusal("create tag object", err); r != nil {
			return "", r
		}
		return "", fmt.Errorf("create tag object %s: %w", t.Name, err)
	}
	return sha, nil
}

// TagExists is the error for a tag that exists and may not be moved.
func TagExists(t Tag, at string) error {
	what := fmt.Sprintf("tag %s already exists", t.Name)
	if at != "" {
		what += " (at " + kind.Short(at) + ")"
	}
	return &kind.Cause{Kind: kind.Conflict, Err: errors.New(what + ": nothing was committed"),
		Hint: "choose another tag name, or move the tag with TagSpec.Force"}
}

// restTagExists reads the tag before a REST fallback move (the check is
// at read time only there): an existing tag that may not move refuses the
// commit before the branch moves.
func (r *Refs) restTagExists(ctx context.Context, t Tag) error {
	if t.Name == "" || t.Force {
		return nil
	}
	name, at, err := r.rest.Ref(ctx, "tags/"+t.Name)
	switch {
	case err == nil && name == t.Ref():
		return TagExists(t, at)
	case err == nil, rest.Status(err) == http.StatusNotFound:
		return nil
	}
	return fmt.Errorf("read tag %s: %w", t.Name, err)
}

// RESTTag creates (or, with force, moves) the tag after the branch moved
// on the REST fallback. Not atomic with the branch: an error here says the
// commit landed without its tag.
func (r *Refs) RESTTag(ctx context.Context, t Tag, commit string) error {
	target, err := r.tagTarget(ctx, t, commit)
	if err == nil {
		err = r.rest.CreateRef(ctx, t.Ref(), target)
		if err != nil && t.Force && rest.Status(err) == http.StatusUnprocessableEntity && rest.MessageIs(err, "Reference already exists") {
			err = r.rest.UpdateRef(ctx, t.Ref(), target, true)
		}
	}
	if err != nil {
		return &kind.Cause{Err: fmt.Errorf("the commit %s landed, but creating tag %s failed (GitHub has no updateRefs here, so the tag is not created with the branch): %w", kind.Short(commit), t.Name, err),
			Hint: "create the tag by hand on " + commit}
	}
	return nil
}

// Tip reads the commit branch points at with one conditional ref read (a
// ref that has not changed since it was last read costs a 304); ok is
// false when it cannot be told.
func (r *Refs) Tip(ctx context.Context, branch string) (sha string, ok bool) {
	if ctx.Err() != nil {
		return "", false
	}
	_, sha, err := r.rest.Ref(ctx, "heads/"+branch)
	if err != nil || !object.IsSHA(sha) {
		return "", false
	}
	return sha, true
}

// WatchMoved starts Tip in the background, alongside a write, and
// returns the wait for its answer: the tip, and whether the branch has
// moved on from head. The read is GET git/ref/heads/{b}, which never
// redirects, and conditional, so a head that has not moved costs a 304.
// It is only a saving: anything that cannot tell (head "" included) is
// "not moved", and the landing write's compare-and-swap decides as
// always. The wait must be called.
func (r *Refs) WatchMoved(ctx context.Context, branch, head string) (wait func() (tip string, moved bool)) {
	type seen struct {
		tip string
		ok  bool
	}
	ch := make(chan seen, 1)
	go func() {
		if head == "" {
			ch <- seen{}
			return
		}
		tip, ok := r.Tip(ctx, branch)
		ch <- seen{tip, ok}
	}()
	return func() (string, bool) {
		s := <-ch
		return s.tip, s.ok && s.tip != head
	}
}
