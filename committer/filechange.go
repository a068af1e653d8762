package committer

// Action says what a commit does to one path.
type Action string

// The actions a commit can take on a path.
const (
	Added     Action = "added"
	Modified  Action = "modified"
	Deleted   Action = "deleted"
	Unchanged Action = "unchanged"
)

// FileChange is one path's part in a commit.
type FileChange struct {
	Path   string `json:"path"`
	Action Action `json:"action"`
}
