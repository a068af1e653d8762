package committer

import (
	"errors"
	"fmt"
	"strings"
)

// A tag on the landed commit, moved in the same updateRefs call as the
// branch: a release never has a branch without its tag, nor a tag on a
// commit that lost the race. On the REST fallback (GitHub without
// updateRefs) the tag is created right after the branch moved: not
// atomic there.

// TagSpec is the tag of Tag.
type TagSpec struct {
	// Name is the tag's name, without "refs/tags/".
	Name string
	// Message makes the tag an annotated tag object with this message (one
	// more write per attempt: POST git/tags). "" makes a lightweight tag.
	Message string
	// Force lets the tag move when it already exists, which is otherwise
	// refused with ErrConflict, with nothing moved.
	Force bool
}

// Tag points the tag t.Name at the landed commit, in the same ref update
// that moves the branch (GraphQL updateRefs: both refs move or neither).
// A tagged commit goes through the git-data engine (auto picks it; an
// explicit graphql or contents engine is ErrInvalid), is not batched with
// other change sets, and a Queue refuses it. Where GitHub has no
// updateRefs, the tag is created right after the branch moved (REST),
// which is not atomic. A change set the branch already holds (a no-op)
// creates no tag. The default is no tag.
func Tag(t TagSpec) CommitOption {
	return func(o *commitOptions) error {
		if t.Name == "" && (t.Message != "" || t.Force) {
			return errors.New("tag: a message or Force needs the tag's name")
		}
		if err := validateTagName(t.Name); err != nil {
			return err
		}
		if t.Message != "" && strings.TrimSpace(t.Message) == "" {
			return errors.New("tag message must not be blank")
		}
		o.tag.Name, o.tag.Message, o.tag.Force = t.Name, t.Message, t.Force
		return nil
	}
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
