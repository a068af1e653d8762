package committer

import (
	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// ValidatePath reports whether p may be written in a repository: relative,
// clean, slash-separated, valid UTF-8, without a NUL, an empty segment, a "."
// or ".." segment, and without a segment that git's verify_path refuses with
// core.protectHFS and core.protectNTFS on: ".git" in any case, with HFS+
// ignorable code points (U+200C "zero width non-joiner" and the like)
// inside it, or with NTFS's trailing dots and spaces (".git.", ".git ") or
// short name ("git~1"), also after a backslash. Every other character git
// keeps in a tree is allowed, URL syntax ("#", "?", "%") and control
// characters included: requests escape the path wherever it goes into a
// URL. The error names the rule that p breaks.
func ValidatePath(p string) error {
	return changes.ValidatePath(p)
}

// ValidateBranch reports whether name is a valid branch name: it refuses
// every name `git check-ref-format --branch` refuses (HEAD, a leading "-",
// ".." , "@{", control characters, a ".lock" or "." ending, ...), and also
// "@", names starting with "refs/" (give the short name) and invalid UTF-8.
func ValidateBranch(name string) error {
	return changes.ValidateBranch(name)
}

// ValidateRepo reports whether owner and name can name a GitHub repository.
func ValidateRepo(owner, name string) error {
	return changes.ValidateRepo(owner, name)
}

// ParseRepo splits "OWNER/NAME" and validates both parts.
func ParseRepo(s string) (owner, name string, err error) {
	return changes.ParseRepo(s)
}

// EditIDTrailer is the git trailer that makes the commit of a change set
// with edit functions or preconditions unique.
//
// Two writers that run the same edit on the same head, with the same
// message, in the same second, would otherwise create byte-identical commits
// — one git object. The second writer's ref update would then "succeed"
// without moving the branch, and its edit (say, an increment) would be lost
// while both report success. A random trailer keeps their commits distinct,
// so the second update is refused as not a fast-forward and its edit re-runs
// on the new head (or its precondition is checked again, and fails, instead
// of two writers both "creating" the same absent file). Set ChangeSet.OmitEditID to leave it out when every
// writer's message is unique anyway.
//
// The one-write engines (GraphQL, the contents API) give every commit one,
// and settle a write whose reply was lost by it. The trailer is always this
// change set's own, fresh and random, appended as the message's last line
// and the same over all its attempts; an Edit-Id the message already holds
// (copied from an earlier commit, or given as a trailer) stays in the
// message and is never taken for it, so a copied message cannot make one
// writer take another's commit for its own.
const EditIDTrailer = "Ghcommitter-Edit-Id"

// The same trailer as the one internal/changes writes (a compile error
// otherwise: the map would have the key false twice).
var _ = map[bool]struct{}{false: {}, EditIDTrailer == changes.EditIDTrailer: {}}

// ValidateMessage reports whether msg can be a commit message: not blank,
// valid UTF-8 (GitHub would turn invalid bytes into U+FFFD) and without a
// NUL byte (git fsck rejects a commit holding one).
func ValidateMessage(msg string) error {
	return changes.ValidateMessage(msg)
}

// Validate reports whether s makes an author or committer line that git
// fsck accepts: a name that is not blank, an email with an "@", neither
// holding "<", ">", a newline or a NUL (git would read "A <b@c> <d@e>" as a
// name ending at the first "<"), both valid UTF-8, and a date, when set,
// between 1970 and 9999.
func (s Signature) Validate() error {
	return changes.ValidateSignature(object.Signature(s))
}
