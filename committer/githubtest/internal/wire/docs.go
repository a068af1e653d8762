package wire

// DocRoot is the documentation URL of error bodies that name no route.
const DocRoot = "https://docs.github.com/rest"

const MsgEmptyRepo = "Git Repository is empty."
