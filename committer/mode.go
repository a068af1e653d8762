package committer

import "fmt"

// Mode is a git file mode as GitHub's tree API spells it.
type Mode string

// The file modes a change set may write.
const (
	ModeFile       Mode = "100644" // a regular file
	ModeExecutable Mode = "100755" // an executable file
	ModeSymlink    Mode = "120000" // a symbolic link; the content is the target
)

// Valid reports whether m is a mode a change set may write.
func (m Mode) Valid() bool {
	switch m {
	case ModeFile, ModeExecutable, ModeSymlink:
		return true
	}
	return false
}

func (m Mode) check() error {
	if !m.Valid() {
		return fmt.Errorf("unknown file mode %q (want 100644, 100755 or 120000)", string(m))
	}
	return nil
}
