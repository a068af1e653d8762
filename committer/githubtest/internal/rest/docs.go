package rest

// Documentation URLs used in the routes' error bodies.
const (
	docCreateBlob = "https://docs.github.com/rest/git/blobs#create-a-blob"
	docGetBlob    = "https://docs.github.com/rest/git/blobs#get-a-blob"
	docCreateTree = "https://docs.github.com/rest/git/trees#create-a-tree"
	docGetTree    = "https://docs.github.com/rest/git/trees#get-a-tree"
	docCreateCmt  = "https://docs.github.com/rest/git/commits#create-a-commit"
	docGetCmt     = "https://docs.github.com/rest/git/commits#get-a-commit-object"
	docGetRef     = "https://docs.github.com/rest/git/refs#get-a-reference"
	docMatchRefs  = "https://docs.github.com/rest/git/refs#list-matching-references"
	docCreateRef  = "https://docs.github.com/rest/git/refs#create-a-reference"
	docUpdateRef  = "https://docs.github.com/rest/git/refs#update-a-reference"
	docDeleteRef  = "https://docs.github.com/rest/git/refs#delete-a-reference"
	docBranch     = "https://docs.github.com/rest/branches/branches#get-a-branch"
	docGetContent = "https://docs.github.com/rest/repos/contents#get-repository-content"
	docPulls      = "https://docs.github.com/rest/pulls/pulls#create-a-pull-request"
	docRepoCommit = "https://docs.github.com/rest/commits/commits#get-a-commit"
	docContents   = "https://docs.github.com/rest/repos/contents#create-or-update-file-contents"
	docDelContent = "https://docs.github.com/rest/repos/contents#delete-a-file"
)
