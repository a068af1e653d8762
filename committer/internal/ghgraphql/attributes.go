package ghgraphql

// attributesFile is the name of git's attribute files, whose text a Paths
// query carries with their entries (see Paths): deciding which paths go
// through Git LFS then costs no request of its own.
//
// See https://docs.github.com/graphql/reference/objects#blob.
const attributesFile = ".gitattributes"
