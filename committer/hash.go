package committer

import "github.com/ghcommitter/ghcommitter/committer/internal/changes"

// BlobSHA returns the git object ID of a blob holding data: the hex SHA-1 of
// "blob <len>\x00" followed by data, exactly as `git hash-object` computes it.
func BlobSHA(data []byte) string {
	return changes.BlobSHA(data)
}
