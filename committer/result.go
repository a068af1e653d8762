package committer

// Result describes a commit that landed, or a change set that needed none.
type Result struct {
	Repository string `json:"repository"`
	Branch     string `json:"branch"`
	Commit     string `json:"commit"` // the new head; the unchanged head for a no-op
	Parent     string `json:"parent"` // the head the commit was built on
	Tree       string `json:"tree"`
	Attempts   int    `json:"attempts"`
	// Changed lists the paths the commit wrote or deleted. Small puts are
	// written without reading the branch first (see Written), so a put of
	// content that was already there can be listed.
	Changed []string     `json:"changed"`
	Files   []FileChange `json:"-"`
	// NoOp is true when the branch already held the change set's content:
	// no commit was made and the branch did not move.
	NoOp bool `json:"noop"`
	// CreatedBranch is true when this commit created the branch.
	CreatedBranch bool `json:"created_branch,omitempty"`
	// Bootstrapped is true when the repository was empty: GitHub's Git Data
	// API refuses to work on a repository with no commit, so its first
	// commit was made through the contents API with one of the change set's
	// own plain files (exactly as asked), and the rest of the change set, if
	// any, followed in a second commit (Commit; its Parent is the first).
	Bootstrapped bool `json:"bootstrapped,omitempty"`
	// Engine names the engine that made the commit (git-data, graphql or
	// contents; see WithEngine): with EngineAuto, the one it picked.
	Engine string `json:"engine,omitempty"`
	// Tag is the tag (Tag) that now points at Commit, moved in the same
	// ref update as the branch where GitHub has updateRefs.
	Tag string `json:"tag,omitempty"`
	// PullRequest is set when a pull-request rule refused the commit and
	// WithPullRequestOnProtected committed it to Branch (a head branch)
	// with a pull request into the protected branch instead.
	PullRequest *ProtectedPullRequest `json:"pull_request,omitempty"`
}

// ProtectedPullRequest is the pull request Commit opened instead of
// committing to a branch whose pull-request rule refused the write
// (WithPullRequestOnProtected).
type ProtectedPullRequest struct {
	Number  int    `json:"number"`
	URL     string `json:"url"`
	Created bool   `json:"created"` // false: an open one from the head branch was reused
	Base    string `json:"base"`    // the protected branch
	// Operation is PullRequestCreated, PullRequestUpdated or
	// PullRequestUnchanged, as in PullRequestResult.
	Operation string `json:"operation,omitempty"`
}
