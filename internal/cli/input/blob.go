package input

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/ghcommitter/ghcommitter/committer"
)

// LocalBlobSHA is the git blob SHA of a loaded local file.
func LocalBlobSHA(lf committer.LocalFile) (string, error) {
	if lf.Data != nil || lf.LocalPath == "" {
		return committer.BlobSHA(lf.Data), nil
	}
	f, err := os.Open(lf.LocalPath)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", lf.Size)
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
