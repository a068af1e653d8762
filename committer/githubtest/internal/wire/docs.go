package wire

// DocRoot is the documentation URL of error bodies that name no route.
const DocRoot = "https://docs.github.com/rest"

// MsgEmptyRepo is GitHub's 409 message for git data requests on a repository
// with no commits.
const MsgEmptyRepo = "Git Repository is empty."
