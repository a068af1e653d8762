package committer

// ValidateSymlinkPath exposes to tests the rule a symlink's path adds to
// ValidatePath.
func ValidateSymlinkPath(p string) error { return validateEntry(p, ModeSymlink) }
