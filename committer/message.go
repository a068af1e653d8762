package committer

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

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
const EditIDTrailer = "Ghcommitter-Edit-Id"

// commitMessage is the message of the commit made for cs: its Message, with
// an EditIDTrailer when it has edit functions or preconditions.
func commitMessage(cs *ChangeSet, p *prepared) string {
	if cs.OmitEditID {
		return cs.Message
	}
	if len(p.pres) > 0 {
		return withEditID(cs.Message)
	}
	for _, o := range p.ops {
		if o.kind == opEdit {
			return withEditID(cs.Message)
		}
	}
	return cs.Message
}

// withEditID appends a random EditIDTrailer to msg, in its trailer block if
// it ends with one.
func withEditID(msg string) string {
	var id [8]byte
	_, _ = rand.Read(id[:])
	trailer := EditIDTrailer + ": " + hex.EncodeToString(id[:])
	msg = strings.TrimRight(msg, "\n")
	paras := strings.Split(msg, "\n\n")
	last := paras[len(paras)-1]
	if len(paras) > 1 && isTrailerBlock(last) {
		return msg + "\n" + trailer + "\n"
	}
	return msg + "\n\n" + trailer + "\n"
}

func isTrailerBlock(p string) bool {
	for _, line := range strings.Split(p, "\n") {
		key, _, ok := strings.Cut(line, ": ")
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return false
		}
	}
	return true
}

// ValidateMessage reports whether msg can be a commit message: not blank,
// valid UTF-8 (GitHub would turn invalid bytes into U+FFFD) and without a
// NUL byte (git fsck rejects a commit holding one).
func ValidateMessage(msg string) error {
	switch {
	case strings.TrimSpace(msg) == "":
		return errors.New("commit message must not be empty")
	case strings.IndexByte(msg, 0) >= 0:
		return errors.New("commit message must not contain a NUL byte")
	case !utf8.ValidString(msg):
		return errors.New("commit message must be valid UTF-8")
	}
	return nil
}

// Validate reports whether s makes an author or committer line that git
// fsck accepts: a name that is not blank, an email with an "@", neither
// holding "<", ">", a newline or a NUL (git would read "A <b@c> <d@e>" as a
// name ending at the first "<"), both valid UTF-8, and a date, when set,
// between 1970 and 9999.
func (s Signature) Validate() error {
	if strings.TrimSpace(s.Name) == "" || !strings.Contains(s.Email, "@") {
		return fmt.Errorf("need a name and an email, got %q <%s>", s.Name, s.Email)
	}
	for _, f := range []struct{ what, v string }{{"name", s.Name}, {"email", s.Email}} {
		if i := strings.IndexAny(f.v, "<>\n\x00"); i >= 0 {
			return fmt.Errorf("%s %q must not contain %q", f.what, f.v, f.v[i])
		}
		if !utf8.ValidString(f.v) {
			return fmt.Errorf("%s %q must be valid UTF-8", f.what, f.v)
		}
	}
	if !s.Date.IsZero() && (s.Date.Year() < 1970 || s.Date.Year() > 9999) {
		return fmt.Errorf("date %s is outside 1970..9999", s.Date.Format(time.RFC3339))
	}
	return nil
}
