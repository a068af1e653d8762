package committer

import "github.com/ghcommitter/ghcommitter/committer/internal/changes"

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
