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
		o.tag.Name = name
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
		o.tag.Message, o.tagMsgSet = message, true
		return nil
	}
}

// ForceTag lets Tag move a tag that already exists. The default refuses
// an existing tag with ErrConflict.
func ForceTag() CommitOption {
	return func(o *commitOptions) error { o.tag.Force = true; return nil }
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
func (co commitOptions) checkTag() error {
	if co.tag.Name == "" && (co.tagMsgSet || co.tag.Force) {
		return errors.New("TagMessage and ForceTag need Tag")
	}
	return nil
}
