package sshsign_test

import (
	"context"
	"fmt"
	"os"

	"golang.org/x/crypto/ssh"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/sshsign"
)

// Sign commits with an SSH key, as git does with gpg.format=ssh. Its public
// half goes to the committer's GitHub account as an SSH signing key.
func ExampleNewSigner() {
	key, err := os.Open(os.ExpandEnv("$HOME/.ssh/id_ed25519"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer key.Close()
	s, err := sshsign.NewSigner(key, []byte(os.Getenv("GHCOMMITTER_SIGN_PASSPHRASE")))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("signing key: %s", ssh.MarshalAuthorizedKey(s.PublicKey()))
	c, err := committer.New("acme", "mono", committer.WithSigner(s))
	if err != nil {
		fmt.Println(err)
		return
	}
	cs := committer.NewChangeSet("bump api").Put("envs/api.txt", []byte("v2\n"))
	cs.Author = &committer.Signature{Name: "Release Bot", Email: "release-bot@example.com"}
	res, err := c.Commit(context.Background(), "main", cs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("signed commit", res.Commit)
}
