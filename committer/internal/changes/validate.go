package changes

import (
	"fmt"
	"strings"
	"unicode/utf8"

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
	switch {
	case p == "":
		return fmt.Errorf("must not be empty")
	case strings.IndexByte(p, 0) >= 0:
		return fmt.Errorf("must not contain a NUL byte")
	case !utf8.ValidString(p):
		return fmt.Errorf("must be valid UTF-8")
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("must be relative (no leading \"/\")")
	case strings.HasSuffix(p, "/"):
		return fmt.Errorf("must not end with \"/\"")
	case len(p) > 4096:
		return fmt.Errorf("must be at most 4096 bytes long")
	}
	for _, seg := range strings.Split(p, "/") {
		switch {
		case seg == "":
			return fmt.Errorf("must not contain an empty segment (\"//\")")
		case seg == ".":
			return fmt.Errorf("must not contain a \".\" segment")
		case seg == "..":
			return fmt.Errorf("must not contain \"..\"")
		case isDotGit(seg):
			return fmt.Errorf("must not contain a segment that git reads as \".git\" (%q)", seg)
		}
	}
	return nil
}

// ValidateEntry adds the rule git applies to symlinks: none may be named
// ".gitmodules" (in any spelling), since git would follow it.
func ValidateEntry(p string, mode string) error {
	if err := ValidatePath(p); err != nil {
		return err
	}
	last := p[strings.LastIndexByte(p, '/')+1:]
	if mode == object.ModeSymlink && isDotGitmodules(last) {
		return fmt.Errorf("a symlink must not be named .gitmodules (%q): git refuses it", last)
	}
	return nil
}

// isDotGit reports whether git's verify_path refuses seg as a spelling of
// ".git" (is_hfs_dotgit, is_ntfs_dotgit, and ".git" in any case).
func isDotGit(seg string) bool {
	if asciiLower(stripHFSIgnorable(seg)) == ".git" {
		return true
	}
	for _, part := range strings.Split(seg, "\\") {
		if isNTFSDotGit(part) {
			return true
		}
	}
	return false
}

// hfsIgnorable are the code points HFS+ ignores in names (git's
// next_hfs_char).
func hfsIgnorable(r rune) bool {
	return r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff
}

func stripHFSIgnorable(s string) string {
	return strings.Map(func(r rune) rune {
		if hfsIgnorable(r) {
			return -1
		}
		return r
	}, s)
}

// isNTFSDotGit is git's is_ntfs_dotgit for one backslash-free part: ".git"
// or "git~1" in any case, followed only by dots and spaces.
func isNTFSDotGit(s string) bool {
	l := asciiLower(s)
	var rest string
	switch {
	case strings.HasPrefix(l, ".git"):
		rest = l[4:]
	case strings.HasPrefix(l, "git~1"):
		rest = l[5:]
	default:
		return false
	}
	return strings.Trim(rest, ". ") == ""
}

// isDotGitmodules is git's is_hfs_dotgitmodules and is_ntfs_dotgitmodules
// for a last segment: ".gitmodules" in any case (HFS ignorables aside, NTFS
// trailing dots and spaces or a ":stream" aside), or its NTFS short names
// "gitmod~1".."gitmod~4" and "gi7eba~N".
func isDotGitmodules(seg string) bool {
	if asciiLower(stripHFSIgnorable(seg)) == ".gitmodules" {
		return true
	}
	l := asciiLower(seg)
	if i := strings.IndexByte(l, ':'); i >= 0 {
		l = l[:i]
	}
	l = strings.TrimRight(l, ". ")
	if l == ".gitmodules" || len(l) == 8 && strings.HasPrefix(l, "gitmod~") && l[7] >= '1' && l[7] <= '4' {
		return true
	}
	return len(l) == 8 && strings.HasPrefix(l, "gi7eba~") && l[7] >= '1' && l[7] <= '9'
}

// ValidateBranch reports whether name is a valid branch name: it refuses
// every name `git check-ref-format --branch` refuses (HEAD, a leading "-",
// ".." , "@{", control characters, a ".lock" or "." ending, ...), and also
// "@", names starting with "refs/" (give the short name) and invalid UTF-8.
func ValidateBranch(name string) error {
	if name == "" {
		return fmt.Errorf("branch name must not be empty")
	}
	if strings.HasPrefix(name, "refs/") {
		return fmt.Errorf("branch %q: give the name without \"refs/heads/\"", name)
	}
	if name == "HEAD" {
		return fmt.Errorf("branch %q: git refuses HEAD as a branch name", name)
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("branch %q: must be valid UTF-8", name)
	}
	if name == "@" || strings.Contains(name, "@{") || strings.Contains(name, "..") ||
		strings.Contains(name, "//") || strings.HasPrefix(name, "/") ||
		strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") || strings.HasPrefix(name, "-") {
		return fmt.Errorf("branch %q is not a valid git branch name", name)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return fmt.Errorf("branch %q: must not contain %q", name, r)
		}
	}
	for _, seg := range strings.Split(name, "/") {
		if strings.HasPrefix(seg, ".") || strings.HasSuffix(seg, ".lock") {
			return fmt.Errorf("branch %q is not a valid git branch name (segment %q)", name, seg)
		}
	}
	return nil
}

// ValidateRepo reports whether owner and name can name a GitHub repository.
func ValidateRepo(owner, name string) error {
	if owner == "" || name == "" {
		return fmt.Errorf("repository must be OWNER/NAME, got %q", owner+"/"+name)
	}
	if len(owner) > 39 {
		return fmt.Errorf("owner %q is longer than 39 characters", owner)
	}
	for _, r := range owner {
		if !(r == '-' || r == '_' || isAlnum(r)) {
			return fmt.Errorf("owner %q: may contain only letters, digits and \"-\"", owner)
		}
	}
	if name == "." || name == ".." || len(name) > 100 {
		return fmt.Errorf("repository name %q is not valid", name)
	}
	for _, r := range name {
		if !(r == '-' || r == '_' || r == '.' || isAlnum(r)) {
			return fmt.Errorf("repository name %q: may contain only letters, digits, \".\", \"-\" and \"_\"", name)
		}
	}
	return nil
}

// ParseRepo splits "OWNER/NAME" and validates both parts.
func ParseRepo(s string) (owner, name string, err error) {
	owner, name, ok := strings.Cut(s, "/")
	if !ok || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("repository must be OWNER/NAME, got %q", s)
	}
	if err := ValidateRepo(owner, name); err != nil {
		return "", "", err
	}
	return owner, name, nil
}

func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// asciiLower lowers ASCII letters only, as git's case-insensitive checks do.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// ValidMode reports whether m is a mode a change set may write.
func ValidMode(m string) bool {
	switch m {
	case object.ModeFile, object.ModeExecutable, object.ModeSymlink:
		return true
	}
	return false
}

func checkMode(m string) error {
	if !ValidMode(m) {
		return fmt.Errorf("unknown file mode %q (want 100644, 100755 or 120000)", m)
	}
	return nil
}
