package engine

// GitData builds the commit from Git Data objects (create tree, create
// commit) and moves the branch with a compare-and-swap ref update: it
// carries every change set, and batches of them, chained or squashed.
type GitData struct{}

// maxGitDataBatchBytes bounds the content of a Git Data batch: it sends its
// content in blobs and tree requests, and a batch's requests stay the size
// of a few change sets'.
const maxGitDataBatchBytes = 8 << 20

// Name implements Engine.
func (GitData) Name() string { return "git-data" }

// Refuse implements Engine: Git Data carries everything.
func (GitData) Refuse(Change) error { return nil }

// Writes implements Engine: a tree and a commit per commit built, and the
// ref update.
func (GitData) Writes(n int, squash bool) int {
	if squash {
		return 3
	}
	return 2*n + 1
}

// Batch implements Engine.
func (GitData) Batch(bool) bool { return true }

// Queue implements Engine.
func (GitData) Queue(bool) error { return nil }

// BatchBytes implements Engine.
func (GitData) BatchBytes() int64 { return maxGitDataBatchBytes }
