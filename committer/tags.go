package committer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// A tag on the landed commit, moved in the same updateRefs call as the
// branch: a release never has a branch without its tag, nor a tag on a
// commit that lost the race. On the REST fallback (GitHub without
// updateRefs) the tag is created right after the branch moved: not
// atomic there.

// tagSpec is the tag a commit asks for (Tag, TagMessage, ForceTag).
type tagSpec struct {
	name    string // "": no tag
	message string // "": lightweight; else an annotated tag object
	force   bool   // move an existing tag
	msgSet  bool
}

func (t tagSpec) ref() string { return "refs/tags/" + t.name }

// Tag points the tag name (without "refs/tags/") at the landed commit, in
// the same ref update that moves the branch (GraphQL updateRefs: both
// refs move or neither). The tag is lightweight unless TagMessage is
// given. An existing tag is refused with ErrConflict, and nothing moves,
// unless ForceTag. A tagged commit goes through the git-data engine (auto
// picks it; an explicit graphql or contents engine is ErrInvalid), is not
// batched with other change sets, and a Queue refuses it. Where GitHub has
// no updateRefs, the tag is created right after the branch moved (REST),
// which is not atomic. A change set the branch already holds (a no-op)
// creates no tag. The default is no tag.
func Tag(name string) CommitOption {
	return func(o *commitOptions) error {
		if err := validateTagName(name); err != nil {
			return err
		}
		o.tag.name = name
		return nil
	}
}

// TagMessage makes the tag of Tag an annotated tag object with message
// (one more write per attempt: POST git/tags). The default is a
// lightweight tag.
func TagMessage(message string) CommitOption {
	return func(o *commitOptions) error {
		if strings.TrimSpace(message) == "" {
			return errors.New("tag message must not be empty")
		}
		o.tag.message, o.tag.msgSet = message, true
		return nil
	}
}

// ForceTag lets Tag move a tag that already exists. The default refuses
// an existing tag with ErrConflict.
func ForceTag() CommitOption {
	return func(o *commitOptions) error { o.tag.force = true; return nil }
}

// validateTagName refuses what git check-ref-format refuses in a tag name
// (the branch rules, with the tag's own wording).
func validateTagName(name string) error {
	if strings.HasPrefix(name, "refs/") {
		return fmt.Errorf("tag %q: give the name without \"refs/tags/\"", name)
	}
	if err := ValidateBranch(name); err != nil {
		return fmt.Errorf("tag name: %s", strings.TrimPrefix(err.Error(), "branch "))
	}
	return nil
}

// checkTag validates the tag options as a whole.
func (t tagSpec) check() error {
	if t.name == "" && (t.msgSet || t.force) {
		return errors.New("TagMessage and ForceTag need Tag")
	}
	return nil
}

// tagTarget returns what the tag ref points at for commit: the commit, or
// a new annotated tag object on it (POST git/tags; one write). See
// https://docs.github.com/rest/git/tags#create-a-tag-object.
func (c *Committer) tagTarget(ctx context.Context, t tagSpec, commit string) (string, error) {
	if t.message == "" {
		return commit, nil
	}
	sha, err := c.rest.CreateTag(ctx, t.name, t.message, commit)
	if err != nil {
		if r := rest.Refusal("create tag object", err); r != nil {
			return "", r
		}
		return "", fmt.Errorf("create tag object %s: %w", t.name, err)
	}
	return sha, nil
}

// tagExists is the error for a tag that exists and may not be moved.
func tagExists(t tagSpec, at string) error {
	what := fmt.Sprintf("tag %s already exists", t.name)
	if at != "" {
		what += " (at " + short(at) + ")"
	}
	return &kind.Cause{Kind: ErrConflict, Err: errors.New(what + ": nothing was committed"),
		Hint: "choose another tag name, or move the tag with ForceTag"}
}

// restTagExists reads the tag before a REST fallback move (the check is
// at read time only there): an existing tag that may not move refuses the
// commit before the branch moves.
func (c *Committer) restTagExists(ctx context.Context, t tagSpec) error {
	if t.name == "" || t.force {
		return nil
	}
	name, at, err := c.rest.Ref(ctx, "tags/"+t.name)
	switch {
	case err == nil && name == t.ref():
		return tagExists(t, at)
	case err == nil, rest.Status(err) == http.StatusNotFound:
		return nil
	}
	return fmt.Errorf("read tag %s: %w", t.name, err)
}

// restTag creates (or, with force, moves) the tag after the branch moved
// on the REST fallback. Not atomic with the branch: an error here says the
// commit landed without its tag.
func (c *Committer) restTag(ctx context.Context, t tagSpec, commit string) error {
	target, err := c.tagTarget(ctx, t, commit)
	if err == nil {
		err = c.rest.CreateRef(ctx, t.ref(), target)
		if err != nil && t.force && rest.Status(err) == http.StatusUnprocessableEntity && rest.MessageIs(err, "Reference already exists") {
			err = c.rest.UpdateRef(ctx, t.ref(), target, true)
		}
	}
	if err != nil {
		return &kind.Cause{Err: fmt.Errorf("the commit %s landed, but creating tag %s failed (GitHub has no updateRefs here, so the tag is not created with the branch): %w", short(commit), t.name, err),
			Hint: "create the tag by hand on " + commit}
	}
	return nil
}
