package committer

import "github.com/ghcommitter/ghcommitter/committer/internal/changes"

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
	return changes.ValidMode(string(m))
}
