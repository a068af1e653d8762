package committer

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ValidatePath reports whether p may be written in a repository: relative,
// clean, slash-separated, valid UTF-8, without a NUL, an empty segment, a "."
// or ".." segment, or a ".git" segment (in any case). The error names the
// rule that p breaks.
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
		case strings.EqualFold(seg, ".git"):
			return fmt.Errorf("must not contain a \".git\" segment")
		}
	}
	return nil
}

// ValidateBranch reports whether name is a valid branch name by git's
// check-ref-format rules (without the "refs/heads/" prefix).
func ValidateBranch(name string) error {
	if name == "" {
		return fmt.Errorf("branch name must not be empty")
	}
	if strings.HasPrefix(name, "refs/") {
		return fmt.Errorf("branch %q: give the name without \"refs/heads/\"", name)
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
