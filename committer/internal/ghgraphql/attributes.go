package ghgraphql

import "path"

// attributesFile is the name of git's attribute files, whose text a Paths
// query carries with their entries: deciding which paths go through Git
// LFS then costs no request of its own.
const attributesFile = ".gitattributes"

// entrySelection is what a Paths query selects at p besides its entry:
// a .gitattributes file's text (Blob.text; null for a binary blob).
//
// See https://docs.github.com/graphql/reference/objects#blob.
func entrySelection(p string) string {
	if path.Base(p) != attributesFile {
		return ""
	}
	return " object { ... on Blob { text isTruncated } }"
}

// textOf is the text a reply's entry carries (see entrySelection): nil
// when it carries none, or only part of it.
func textOf(entry map[string]any) *string {
	obj, _ := entry["object"].(map[string]any)
	text, ok := obj["text"].(string)
	if truncated, _ := obj["isTruncated"].(bool); !ok || truncated {
		return nil
	}
	return &text
}
