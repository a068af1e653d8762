package sign

import (
	"strings"
	"time"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
)

// SSH signing keys registered with the fake, as a user adds them to their
// GitHub account ("SSH signing keys", POST /user/ssh_signing_keys): a commit
// sent with an armored sshsig signature (git's gpg.format=ssh) is Verified
// when the signature, in namespace "git", checks over the commit against a
// registered key and the committer's email is a verified address of the
// key's user. Otherwise its verification says why: "malformed_signature"
// (not an sshsig block), "unknown_key" (no registered key made it),
// "invalid" (it does not check, or is for another namespace), "bad_email"
// (the key's user does not have the committer's email).

// SSHKey is an SSH signing key and the verified emails of its user.
type SSHKey struct {
	Key    ssh.PublicKey
	Emails []string
}

// sshArmor starts an armored sshsig signature.
const sshArmor = "-----BEGIN SSH SIGNATURE-----"

// IsSSH reports whether signature is an armored SSH signature.
func IsSSH(signature string) bool {
	return strings.HasPrefix(strings.TrimLeft(signature, " \t\r\n"), sshArmor)
}

// VerifySSH is the verification of a commit a client signed with an SSH
// key, checked against keys.
func VerifySSH(keys []SSHKey, payload, signature, committerEmail string, now time.Time) Verification {
	sig, pl := signature, payload
	v := Verification{Reason: "malformed_signature", Signature: &sig, Payload: &pl}
	parsed, err := sshsig.Unarmor([]byte(signature))
	if err != nil {
		return v
	}
	fp := ssh.FingerprintSHA256(parsed.PublicKey)
	var key *SSHKey
	for i := range keys {
		if ssh.FingerprintSHA256(keys[i].Key) == fp {
			key = &keys[i]
			break
		}
	}
	if key == nil {
		v.Reason = "unknown_key"
		return v
	}
	// git signs and verifies commits in the "git" namespace only; Verify
	// refuses a hash other than sha256 and sha512, as ssh-keygen does.
	err = sshsig.Verify(strings.NewReader(payload), parsed, key.Key, parsed.HashAlgorithm, "git")
	if err != nil {
		v.Reason = "invalid"
		return v
	}
	for _, e := range key.Emails {
		if strings.EqualFold(e, committerEmail) {
			at := now.UTC().Format(time.RFC3339)
			v.Verified, v.Reason, v.VerifiedAt = true, "valid", &at
			return v
		}
	}
	v.Reason = "bad_email"
	return v
}
