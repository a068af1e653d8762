package changes

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// EditIDTrailer is the git trailer that makes the commit of a change set
// with edit functions or preconditions unique (see committer.EditIDTrailer).
const EditIDTrailer = "Ghcommitter-Edit-Id"

// NewEditID returns a fresh random EditIDTrailer value: one per change set
// (or squashed batch), kept over all its attempts.
func NewEditID() string {
	var id [8]byte
	_, _ = rand.Read(id[:])
	return hex.EncodeToString(id[:])
}

// WithEditID appends the trailer "EditIDTrailer: id" to msg, as the last
// line of its trailer block if it ends with one, else as a new paragraph.
// Whatever msg already holds (an Edit-Id copied from another commit, or
// given as a trailer) stays as it is: only this last line is ours.
func WithEditID(msg, id string) string {
	trailer := EditIDTrailer + ": " + id
	msg = strings.TrimRight(msg, "\n")
	paras := strings.Split(msg, "\n\n")
	last := paras[len(paras)-1]
	if len(paras) > 1 && isTrailerBlock(last) {
		return msg + "\n" + trailer + "\n"
	}
	return msg + "\n\n" + trailer + "\n"
}

// OwnEditID returns the Edit-Id a commit message was given by WithEditID:
// the value of the last EditIDTrailer line (in exactly that spelling) of
// the trailer block that ends msg; "" when msg does not end with a trailer
// block holding one. An Edit-Id anywhere else in msg (in the body, in an
// earlier paragraph, before ours in the same block) is the caller's text,
// never the commit's identity.
func OwnEditID(msg string) string {
	msg = strings.TrimRight(msg, " \t\r\n")
	paras := strings.Split(msg, "\n\n")
	last := paras[len(paras)-1]
	if len(paras) < 2 || !isTrailerBlock(last) {
		return ""
	}
	lines := strings.Split(last, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if key, val, _ := strings.Cut(lines[i], ": "); key == EditIDTrailer {
			return strings.TrimSpace(val)
		}
	}
	return ""
}

// WithoutEditID is msg without the Edit-Id WithEditID gave it (the last
// line of its trailer block, and the block when nothing else is in it),
// its trailing white space trimmed: the message the change set was given.
func WithoutEditID(msg string) string {
	msg = strings.TrimRight(msg, " \t\r\n")
	if OwnEditID(msg) == "" {
		return msg
	}
	paras := strings.Split(msg, "\n\n")
	lines := strings.Split(paras[len(paras)-1], "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if key, _, _ := strings.Cut(lines[i], ": "); key == EditIDTrailer {
			lines = append(lines[:i], lines[i+1:]...)
			break
		}
	}
	paras = paras[:len(paras)-1]
	if len(lines) > 0 {
		paras = append(paras, strings.Join(lines, "\n"))
	}
	return strings.TrimRight(strings.Join(paras, "\n\n"), " \t\r\n")
}

// HasOwnEditID reports whether a commit message's own Edit-Id is id.
func HasOwnEditID(msg, id string) bool {
	return id != "" && OwnEditID(msg) == id
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

// ValidateSignature reports whether s makes an author or committer line that git
// fsck accepts: a name that is not blank, an email with an "@", neither
// holding "<", ">", a newline or a NUL (git would read "A <b@c> <d@e>" as a
// name ending at the first "<"), both valid UTF-8, and a date, when set,
// between 1970 and 9999.
func ValidateSignature(s object.Signature) error {
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

// SplitMessage returns a commit message's first line and the rest, trimmed:
// GraphQL's headline and body, a pull request's title and body.
func SplitMessage(msg string) (title, body string) {
	msg = strings.TrimSpace(msg)
	title, body, _ = strings.Cut(msg, "\n")
	return strings.TrimSpace(title), strings.TrimSpace(body)
}
